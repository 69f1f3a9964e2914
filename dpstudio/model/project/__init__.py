"""The project the studio and the API edit: the data source, its schema and public inputs with provenance, declarations, the project file."""
