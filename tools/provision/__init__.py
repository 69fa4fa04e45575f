"""Set-up steps that ``make setup`` runs: data and system software the metrics need."""
