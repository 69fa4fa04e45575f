# Reproduces "The price of debiasing automatic metrics in natural language evaluation"
# (Chaganty, Mussmann, Liang; ACL 2018) from the released crowd judgments.
#
#   snakemake --cores N          regenerate every table, figure and the report in results/
#   snakemake --report report.html   Snakemake's HTML report with the figures and captions


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/bootstrap.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
