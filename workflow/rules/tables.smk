# Step 3: variance components of the human judgments (Table 2), pooled and per system.


rule table2:
    input:
        systems=all_judged_system_files(),
        references=all_reference_files(),
    output:
        csv=f"{R}/tables/table2.csv",
        md=f"{R}/tables/table2.md",
        tex=f"{R}/tables/table2.tex",
        by_system=f"{R}/tables/variance_by_system.csv",
    log:
        f"{R}/logs/table2.log",
    params:
        tasks=config["tasks"],
        data_dir=config["data_dir"],
    script:
        "../../scripts/table2.py"
