"""Result tables built from the joined tables (pandas): one module per kind of table."""
