"""The statistics core: numpy and scipy only, no pandas, no file formats."""
