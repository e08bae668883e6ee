# apr-patch: rules of this component (filled in by its issue).
