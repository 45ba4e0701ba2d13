-- The ledger is written twice per request (admission, settlement): keep its indexes to the two the
-- reads need, so that settling a row touches no index (a HOT update, with room left on each page).
-- The compactor scans the rows still in the store (those of the last minute or so) without an index,
-- and seq is unique by its sequence.
DROP INDEX ledger_settled;
ALTER TABLE ledger DROP CONSTRAINT ledger_seq_key;
ALTER TABLE ledger SET (fillfactor = 70);
