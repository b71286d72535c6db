"""Builder of the LeadGreen v1 data package."""
