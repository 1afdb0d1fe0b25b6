"""Sources kept in sync (issue 40): the sources themselves, their sync runs, and the syncs of pages and folders."""
