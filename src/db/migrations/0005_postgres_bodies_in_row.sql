-- A task body of a few kB went out of line above ~2 kB (TOAST): every
-- write was a second heap insert (two chunks) and a TOAST index entry on
-- top of the row. Bodies now stay in the row up to nearly a page; larger
-- ones still go out of line, uncompressed (0002).
ALTER TABLE tasks SET (toast_tuple_target = 8160);
