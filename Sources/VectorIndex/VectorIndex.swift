// VectorIndex module.
