# loadtest/mt: rules of this component (filled in by its issue).
