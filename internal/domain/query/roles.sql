-- The statements of a source's role expressions (roles.go), text/template
-- over quoted names and checked expressions.

-- name: role_type
-- The type of a checked role expression over the source's table: the
-- engine types it without reading a row.
DESCRIBE (SELECT {{.Expr}} AS r FROM {{.From}})
