-- name: atom_nodes
-- The atoms a graph shows, by id.
SELECT id, type, status, claim, language, confidence
  FROM pm_atom
 WHERE id = ANY(%(ids)s)

-- name: symbol_nodes
-- The code symbols a graph shows, by id.
SELECT id, repo, path, name, qualified_name, kind, start_line
  FROM pm_code_symbol
 WHERE id = ANY(%(ids)s)

-- name: atom_links
-- The links of one atom, both ways, extracted before inferred, at most `limit` + 1 of them
-- (the extra one says there are more). Each half uses its own index.
(SELECT l.id, l.src_atom_id AS src, l.dst_atom_id AS dst, l.kind, l.confidence, l.inferred,
        l.source, l.metadata
   FROM pm_atom_link l
  WHERE l.src_atom_id = %(id)s
  ORDER BY l.inferred, l.id
  LIMIT %(limit)s + 1)
UNION ALL
(SELECT l.id, l.src_atom_id, l.dst_atom_id, l.kind, l.confidence, l.inferred, l.source,
        l.metadata
   FROM pm_atom_link l
  WHERE l.dst_atom_id = %(id)s AND l.src_atom_id <> %(id)s
  ORDER BY l.inferred, l.id
  LIMIT %(limit)s + 1)

-- name: atom_cited_symbols
-- The code symbols an atom cites (memory_store cite_code).
SELECT DISTINCT c.code_symbol_id AS symbol_id
  FROM pm_citation c
 WHERE c.atom_id = %(id)s AND c.code_symbol_id IS NOT NULL
 LIMIT %(limit)s + 1

-- name: symbol_citing_atoms
-- The atoms that cite one code symbol.
SELECT DISTINCT c.atom_id
  FROM pm_citation c
 WHERE c.code_symbol_id = %(id)s
 LIMIT %(limit)s + 1

-- name: symbol_edges
-- The edges of one code symbol, both ways: dependencies written in the code (resolved inside
-- the repository; may_call candidates left out, as memory_code_graph does by default) and the
-- edges rules derived from them (pm_code_inferred). At most `limit` + 1 of each part.
(SELECT d.id, d.src_symbol_id AS src, d.dst_symbol_id AS dst, d.kind, NULL::real AS confidence,
        false AS inferred, d.line, d.metadata
   FROM pm_code_dependency d
  WHERE d.src_symbol_id = %(id)s AND d.dst_symbol_id IS NOT NULL AND d.kind <> 'may_call'
  ORDER BY d.id
  LIMIT %(limit)s + 1)
UNION ALL
(SELECT d.id, d.src_symbol_id, d.dst_symbol_id, d.kind, NULL::real, false, d.line, d.metadata
   FROM pm_code_dependency d
  WHERE d.dst_symbol_id = %(id)s AND d.src_symbol_id <> %(id)s AND d.kind <> 'may_call'
  ORDER BY d.id
  LIMIT %(limit)s + 1)
UNION ALL
(SELECT i.id, i.src_symbol_id, i.dst_symbol_id, i.kind, i.confidence, true, NULL::integer,
        i.metadata
   FROM pm_code_inferred i
  WHERE i.src_symbol_id = %(id)s
  ORDER BY i.id
  LIMIT %(limit)s + 1)
UNION ALL
(SELECT i.id, i.src_symbol_id, i.dst_symbol_id, i.kind, i.confidence, true, NULL::integer,
        i.metadata
   FROM pm_code_inferred i
  WHERE i.dst_symbol_id = %(id)s AND i.src_symbol_id <> %(id)s
  ORDER BY i.id
  LIMIT %(limit)s + 1)
