-- name: symbol
-- One code symbol with its docstring (the code pages start from its id).
SELECT id, repo, path, language, name, qualified_name, kind, start_line, end_line, signature,
       docstring
  FROM pm_code_symbol
 WHERE id = %(id)s

-- name: citing_atoms
-- The atoms that cite a code symbol (memory_store cite_code, or documentation naming it).
SELECT a.id, a.type, a.status, a.claim, a.language, c.locator
  FROM pm_citation c JOIN pm_atom a ON a.id = c.atom_id
 WHERE c.code_symbol_id = %(id)s
 ORDER BY a.id
 LIMIT %(limit)s
