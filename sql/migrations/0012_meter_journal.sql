-- How far the embedded store's meter journal has been settled (ADR 0013, "The journal"): a server
-- appends each request it settled in memory to data/meter-journal/<seq>.jsonl before the answer's first
-- byte, and the batch that settles those requests in the store moves this position in the same
-- transaction. At start, what lies past it is settled before anything else, so a line is settled once.
CREATE TABLE meter_journal (
  journal  text PRIMARY KEY,
  seq      bigint NOT NULL,
  position bigint NOT NULL
);
