"""The simulation checks: do the intervals hold their level (coverage, paired coverage), how
wide are they as judgments accrue (the bootstrap behind Figure 6 and data efficiency), and does a
plan from a small pilot meet its target. They resample the shapes' data and call their
estimators; nothing in a shape imports them."""
