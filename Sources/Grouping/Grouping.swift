// Grouping module.
