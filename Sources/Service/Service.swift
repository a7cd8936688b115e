// Service module.
