// KindredCore module.
