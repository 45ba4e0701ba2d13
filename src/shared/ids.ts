// The shape of the ids the API hands out (job, company and export ids are UUIDs).

/** A UUID as the API writes it: lower-case hex digits. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID in any case (a client may send one in upper case: src/http/uuid-case.ts lowers it). */
export const ANY_CASE_UUID = new RegExp(UUID.source, 'i');
