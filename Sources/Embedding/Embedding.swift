// Embedding module.
