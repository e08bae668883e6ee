# modules/mod_bc: rules of this component (filled in by its issue).
