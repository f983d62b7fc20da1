-- The server's functions with their categories (an alias takes the
-- categories of the function it stands for), for the sql where check.
SELECT f.name, f.case_insensitive, if(f.alias_to = '', f.categories, a.categories)
FROM system.functions AS f
LEFT JOIN system.functions AS a ON a.name = f.alias_to
