-- The metering functions (spec 8, DESIGN.md 6), installed by src/db/migrate.ts after the migrations
-- whenever this file changes. Each admission or settlement of a request is one call: one round trip
-- and one transaction, exact under concurrency because it first locks the account's rows.
--
-- Records model: a request draws one monthly request at admission; its records are charged when it
-- is answered, within the allowance first, then as overage up to the monthly limit.
-- Requests model (spec 8.4): each API key has free request units a day; past them a request is paid,
-- from the prepaid balance first, then as overage.

-- Signatures replaced since: CREATE OR REPLACE would keep them as overloads.
DROP FUNCTION IF EXISTS meter_settle(text, timestamptz, date, integer, text, bigint, bigint, bigint, bigint, boolean, boolean);
DROP FUNCTION IF EXISTS meter_records_room(usage_months, bigint, accounts);
DROP FUNCTION IF EXISTS meter_admit(text, text, text, timestamptz, text, text, text, boolean, integer, integer, bigint, bigint, text, timestamptz, boolean, bigint);
DROP FUNCTION IF EXISTS meter_reserve(text, date, bigint, bigint);
DROP FUNCTION IF EXISTS meter_admit(text, text, text, timestamptz, text, text, text, boolean, integer, integer, bigint, bigint, text, timestamptz, boolean, boolean, bigint, bigint);
DROP FUNCTION IF EXISTS meter_admit(text, text, text, timestamptz, text, text, text, boolean, integer, integer, bigint, bigint, text, timestamptz, boolean, boolean, bigint, bigint, text);
DROP FUNCTION IF EXISTS meter_admit(text, text, text, timestamptz, text, text, text, boolean, integer, integer, bigint, bigint, text, timestamptz, boolean, boolean, bigint, bigint, text, boolean);
DROP FUNCTION IF EXISTS meter_settle(text, timestamptz, date, integer, text, bigint, bigint, bigint, bigint, boolean, boolean, text, text, boolean, bigint, bigint);
DROP FUNCTION IF EXISTS meter_reserve(text, date, bigint, bigint, text, timestamptz, bigint);
DROP FUNCTION IF EXISTS meter_settle(text, timestamptz, date, integer, text, bigint, bigint, bigint, bigint, boolean, boolean, text, text, boolean, bigint, bigint, bigint, bigint);
DROP FUNCTION IF EXISTS meter_draw(text, text, text, timestamptz, text, text, text, text);
DROP FUNCTION IF EXISTS meter_settle_leased(text, text, text, timestamptz, text, text, text, text, date, integer, bigint, bigint, boolean, boolean, boolean, bigint, bigint);
DROP FUNCTION IF EXISTS meter_draw(text, text, text, timestamptz, text, text, text, text, boolean);
DROP FUNCTION IF EXISTS meter_settle_leased(text, text, text, timestamptz, text, text, text, text, boolean, date, integer, bigint, bigint, boolean, boolean, boolean, bigint, bigint);
DROP FUNCTION IF EXISTS meter_window_taken(text, timestamptz, bigint);

CREATE OR REPLACE FUNCTION meter_month(p_at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE AS $$
  SELECT date_trunc('month', p_at AT TIME ZONE 'UTC')::date
$$;

-- The month's row of the account, created when missing, locked until the transaction ends.
CREATE OR REPLACE FUNCTION meter_lock_month(p_account text, p_month date) RETURNS usage_months
LANGUAGE plpgsql AS $$
DECLARE
  v usage_months;
BEGIN
  INSERT INTO usage_months AS u (account_id, month) VALUES (p_account, p_month)
  ON CONFLICT (account_id, month) DO UPDATE SET account_id = u.account_id
  RETURNING * INTO v;
  RETURN v;
END
$$;

-- How many more records the month can take (NULL: no ceiling): the allowance left after what is used
-- and reserved, plus what overage still allows. Records reserved past the allowance already count
-- against the overage limit.
CREATE OR REPLACE FUNCTION meter_records_room(m usage_months, p_allowance bigint, p_overage_enabled boolean, p_price bigint, p_limit_cents bigint) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_included bigint := greatest(0, p_allowance - m.records_used - m.records_reserved);
  v_reserved_beyond bigint := greatest(0, m.records_used + m.records_reserved - p_allowance) - greatest(0, m.records_used - p_allowance);
BEGIN
  IF NOT p_overage_enabled OR p_price IS NULL THEN
    RETURN v_included;
  END IF;
  IF p_limit_cents IS NULL THEN
    RETURN NULL;
  END IF;
  RETURN v_included + greatest(0, (p_limit_cents * 10000 - m.overage_used_micros) / p_price - v_reserved_beyond);
END
$$;

-- One request taken: drawn from p_draw's grant (NULL: none, the requests model), counted in the month
-- of p_at, and its ledger row written, pending settlement. The two months' rows are locked in month
-- order, as settlement locks them.
CREATE OR REPLACE FUNCTION meter_take_request(
  p_request text, p_account text, p_key text, p_at timestamptz, p_method text, p_route text, p_class text,
  p_draw date, p_node text
) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_months u SET requests_drawn = u.requests_drawn + coalesce(u.month = p_draw, false)::int,
    requests_used = u.requests_used + (u.month = meter_month(p_at))::int
  FROM (SELECT month FROM usage_months WHERE account_id = p_account AND (month = p_draw OR month = meter_month(p_at)) ORDER BY month FOR UPDATE) o
  WHERE u.account_id = p_account AND u.month = o.month;
  PERFORM meter_ledger_pending(p_request, p_account, p_key, p_at, p_method, p_route, p_class, p_draw, p_node);
END
$$;

-- The ledger row of a request taken, pending settlement.
CREATE OR REPLACE FUNCTION meter_ledger_pending(
  p_request text, p_account text, p_key text, p_at timestamptz, p_method text, p_route text, p_class text,
  p_draw date, p_node text
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, settlement_status, drawn_month, node_id, counted)
  VALUES (p_request, p_account, p_key, p_at, p_method, p_route, p_class, 'pending', p_draw, p_node, true)
$$;

-- A refused request leaves no trace but its count, for analytics (refused).
CREATE OR REPLACE FUNCTION meter_count_refusal(p_account text, p_at timestamptz, p_class text, p_key text) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO refusals AS r (account_id, day, route_class, api_key_id, refused)
  VALUES (p_account, (p_at AT TIME ZONE 'UTC')::date, p_class, p_key, 1)
  ON CONFLICT (account_id, day, route_class, api_key_id) DO UPDATE SET refused = r.refused + 1
$$;

-- Admission (DESIGN.md 6: key → rate window → monthly requests → handler): refuses with outcome
-- 'window', 'requests' (monthly requests used up) or 'daily' (requests model: the key's free units are
-- used up and neither the prepaid balance nor overage within its limit can pay for one more unit;
-- getting one job never counts), using nothing (a refusal is only counted, in refusals); otherwise takes
-- one request of the window and of the month and writes the request's ledger row, pending. Every call
-- counts one monthly request (spec 8.3 rule 2); a request outside the window (p_windowed false:
-- PUT /v1/account/overage, spec 4.10 rule 7) takes none of the window. p_counted false takes nothing at all: a look at where the account stands
-- (MCP get_usage, run in a transaction that is rolled back). Prices are the caller's (src/metering/meter.ts
-- holds them): p_unit_micros is the least this request can cost in the requests model, one request unit
-- of its class (0: never paid, as the account's settings, or no unit, as getting one job); p_prepaid_ok:
-- the prepaid balance pays for it.
-- p_node: the server admitting it, which settles it (or, if that server dies, another: meter_abandon).
CREATE OR REPLACE FUNCTION meter_admit(
  p_request text, p_account text, p_key text, p_at timestamptz, p_method text, p_route text, p_class text,
  p_windowed boolean, p_window_limit integer, p_window_seconds integer, p_plan_requests bigint, p_daily_free bigint,
  p_model text, p_since timestamptz, p_prepaid_ok boolean, p_overage_on boolean, p_overage_limit_cents bigint,
  p_unit_micros bigint, p_node text, p_counted boolean
) RETURNS TABLE (
  outcome text, window_used integer, window_reset timestamptz,
  requests_used bigint, requests_left bigint, records_used bigint, records_reserved bigint
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_window timestamptz := to_timestamp(floor(extract(epoch FROM p_at) / p_window_seconds) * p_window_seconds);
  v_month date := meter_month(p_at);
  v_first date := (meter_month(p_at) - interval '12 months')::date;
  v_used integer;
  v_start timestamptz;
  v_granted bigint;
  v_left bigint;
  v_requests bigint;
  v_records bigint;
  v_reserved bigint;
  v_overage bigint;
  v_draw date;
  v_outcome text;
BEGIN
  -- The window row first: it serialises the admissions of the account. A metered request takes one;
  -- past the limit it is refused (a refused request leaves the window full, as it found it).
  INSERT INTO rate_windows AS w (account_id, window_start, used) VALUES (p_account, v_window, (p_windowed AND p_counted)::int)
  ON CONFLICT (account_id) DO UPDATE
    SET window_start = greatest(w.window_start, v_window),
        used = CASE WHEN w.window_start < v_window THEN 0 ELSE w.used END + (p_windowed AND p_counted)::int,
        held = CASE WHEN w.window_start < v_window THEN 0 ELSE w.held END
  RETURNING w.used, w.window_start INTO v_used, v_start;

  FOR i IN 1..2 LOOP
    SELECT max(requests_granted) FILTER (WHERE month = v_month), coalesce(sum(requests_granted - requests_drawn), 0),
           coalesce(max(requests_used) FILTER (WHERE month = v_month), 0), coalesce(max(records_used) FILTER (WHERE month = v_month), 0),
           coalesce(max(records_reserved) FILTER (WHERE month = v_month), 0), coalesce(max(overage_used_micros) FILTER (WHERE month = v_month), 0),
           min(month) FILTER (WHERE requests_drawn < requests_granted)
    INTO v_granted, v_left, v_requests, v_records, v_reserved, v_overage, v_draw
    FROM usage_months WHERE account_id = p_account AND month BETWEEN v_first AND v_month;
    EXIT WHEN v_granted = p_plan_requests;
    -- This month's grant follows the plan. The months since the account was created (up to 12 back)
    -- without a row used nothing: their whole grant carries over. A request dated in a month before the
    -- account's first (the clock of the server that admits it behind the one that created it) has its
    -- own month granted, not none.
    IF coalesce(v_granted, 0) = 0 THEN
      INSERT INTO usage_months (account_id, month, requests_granted)
      SELECT p_account, m::date, p_plan_requests
      FROM generate_series(least(greatest(meter_month(p_since), v_first), v_month), v_month, interval '1 month') AS m
      ON CONFLICT (account_id, month) DO NOTHING;
    END IF;
    UPDATE usage_months SET requests_granted = p_plan_requests WHERE account_id = p_account AND month = v_month;
  END LOOP;

  IF p_model = 'requests' THEN
    SELECT p_daily_free - coalesce(max(free_units), 0) INTO v_left FROM key_days WHERE key_id = p_key AND day = (p_at AT TIME ZONE 'UTC')::date;
  END IF;
  IF NOT p_counted THEN
    RETURN QUERY SELECT 'admitted'::text, v_used, v_start + make_interval(secs => p_window_seconds),
      v_requests, greatest(v_left, 0), v_records, v_reserved;
    RETURN;
  ELSIF p_windowed AND v_used > p_window_limit THEN
    v_outcome := 'window';
  ELSIF p_model = 'records' AND v_left <= 0 THEN
    v_outcome := 'requests';
  ELSIF p_model = 'requests' AND v_left <= 0 AND p_unit_micros > 0 AND NOT (p_prepaid_ok
      OR (p_overage_on AND (p_overage_limit_cents IS NULL OR v_overage + p_unit_micros <= p_overage_limit_cents * 10000))) THEN
    v_outcome := 'daily';
  END IF;
  IF v_outcome IS NOT NULL THEN
    IF v_outcome <> 'window' AND p_windowed THEN
      UPDATE rate_windows SET used = used - 1 WHERE account_id = p_account;
    END IF;
    -- Counted for analytics (refused), under the window row's lock like everything else here.
    PERFORM meter_count_refusal(p_account, p_at, p_class, p_key);
    RETURN QUERY SELECT v_outcome, least(v_used, p_window_limit), v_start + make_interval(secs => p_window_seconds),
      v_requests, greatest(v_left, 0), v_records, v_reserved;
    RETURN;
  END IF;
  -- One request drawn from the oldest grant not used up (records model), one request used this month.
  IF p_model <> 'records' THEN
    v_draw := NULL;
  ELSE
    v_left := v_left - 1;
  END IF;
  PERFORM meter_take_request(p_request, p_account, p_key, p_at, p_method, p_route, p_class, v_draw, p_node);
  v_requests := v_requests + 1;
  RETURN QUERY SELECT 'admitted'::text, v_used, v_start + make_interval(secs => p_window_seconds),
    v_requests, greatest(v_left, 0), v_records, v_reserved;
END
$$;

-- Leases of the request window (ADR 0013; records model, the embedded store, which one process holds):
-- a server takes up to p_want slots of the account's current window at once (used, and held until a
-- request taken in the store uses one) and admits requests from them in memory; each such request is
-- taken (its monthly request drawn, its ledger row written) by the one call that settles it
-- (meter_settle_leased), or by meter_draw when it is taken earlier. The
-- lease also says where the account stands, the months' grants brought up to the plan as admission
-- brings them (meter_admit, taking nothing). window_used is the window's use before this grant, slots
-- granted earlier included.
CREATE OR REPLACE FUNCTION meter_lease(
  p_account text, p_key text, p_at timestamptz, p_window_limit integer, p_window_seconds integer,
  p_plan_requests bigint, p_since timestamptz, p_want integer
) RETURNS TABLE (
  granted integer, window_used integer, window_reset timestamptz,
  requests_used bigint, requests_left bigint, records_used bigint, records_reserved bigint
)
LANGUAGE plpgsql AS $$
DECLARE
  a record;
  v_granted integer;
BEGIN
  SELECT * INTO a FROM meter_admit(NULL, p_account, p_key, p_at, NULL, NULL, NULL, false, p_window_limit, p_window_seconds,
    p_plan_requests, 0, 'records', p_since, false, false, NULL, 0, NULL, false);
  v_granted := least(p_want, greatest(0, p_window_limit - a.window_used));
  IF v_granted > 0 THEN
    UPDATE rate_windows SET used = used + v_granted, held = held + v_granted WHERE account_id = p_account;
  END IF;
  RETURN QUERY SELECT v_granted, a.window_used, a.window_reset, a.requests_used, a.requests_left, a.records_used, a.records_reserved;
END
$$;

-- More slots of the account's current window, for a server that counts the account's month in memory
-- since its last meter_lease of the month (ADR 0013): the window row alone, taken as meter_lease takes
-- it, the months not brought up again.
CREATE OR REPLACE FUNCTION meter_lease_slots(
  p_account text, p_at timestamptz, p_window_limit integer, p_window_seconds integer, p_want integer
) RETURNS TABLE (granted integer, window_used integer, window_reset timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  v_window timestamptz := to_timestamp(floor(extract(epoch FROM p_at) / p_window_seconds) * p_window_seconds);
  v_used integer;
  v_start timestamptz;
  v_granted integer;
BEGIN
  INSERT INTO rate_windows AS w (account_id, window_start, used) VALUES (p_account, v_window, 0)
  ON CONFLICT (account_id) DO UPDATE
    SET window_start = greatest(w.window_start, v_window),
        used = CASE WHEN w.window_start < v_window THEN 0 ELSE w.used END,
        held = CASE WHEN w.window_start < v_window THEN 0 ELSE w.held END
  RETURNING w.used, w.window_start INTO v_used, v_start;
  v_granted := least(p_want, greatest(0, p_window_limit - v_used));
  IF v_granted > 0 THEN
    UPDATE rate_windows SET used = used + v_granted, held = held + v_granted WHERE account_id = p_account;
  END IF;
  RETURN QUERY SELECT v_granted, v_used, v_start + make_interval(secs => p_window_seconds);
END
$$;

-- Slots of a lease not used, given back (a server stopping, a plan changed): nothing when the window
-- has passed.
CREATE OR REPLACE FUNCTION meter_lease_return(p_account text, p_window_start timestamptz, p_slots integer) RETURNS void
LANGUAGE sql AS $$
  UPDATE rate_windows SET used = greatest(0, used - p_slots), held = greatest(0, held - p_slots)
  WHERE account_id = p_account AND window_start = p_window_start
$$;

-- The window row w after p_slots requests admitted from a lease in the window starting p_window are
-- taken (meter_window_taken).
CREATE OR REPLACE FUNCTION meter_window_next(w rate_windows, p_window timestamptz, p_slots bigint)
RETURNS TABLE (window_start timestamptz, used integer, held integer)
LANGUAGE sql IMMUTABLE AS $$
  SELECT greatest(w.window_start, p_window),
    (CASE WHEN w.window_start < p_window THEN p_slots WHEN w.window_start > p_window THEN w.used
          ELSE w.used + greatest(0, p_slots - w.held) END)::integer,
    (CASE WHEN w.window_start < p_window THEN 0 WHEN w.window_start > p_window THEN w.held
          ELSE greatest(0, w.held - p_slots) END)::integer
$$;

-- Requests admitted from a lease in the window starting p_window (p_slots of them) are taken in the
-- store: their slots used. A slot the lease took in the store is no longer held; one it counted in memory
-- alone (a window the server began without asking the store, for an account whose month it counts) is
-- counted used now, the row brought to that window first. Nothing when the row counts a later window.
CREATE OR REPLACE FUNCTION meter_window_taken(p_account text, p_window timestamptz, p_slots bigint) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO rate_windows AS w (account_id, window_start, used, held) VALUES (p_account, p_window, p_slots, 0)
  ON CONFLICT (account_id) DO UPDATE
    SET (window_start, used, held) = (SELECT * FROM meter_window_next(w, excluded.window_start, excluded.used))
$$;

-- A server starts on the embedded store, after settling what the last one journaled: the slots the last
-- server held and did not use (it was killed) are given back, as its clean stop would have. The slots
-- given back.
CREATE OR REPLACE FUNCTION meter_return_held() RETURNS bigint
LANGUAGE sql AS $$
  WITH returned AS (
    UPDATE rate_windows w SET used = greatest(0, w.used - w.held), held = 0 FROM rate_windows o
    WHERE o.account_id = w.account_id AND w.held > 0
    RETURNING o.held
  )
  SELECT coalesce(sum(held), 0)::bigint FROM returned
$$;

-- One monthly request drawn for a request admitted from a lease: from the oldest grant with room (the
-- room checked on the row's latest version, so two servers of one store never draw the same request),
-- counted in the month of p_at. The month drawn, or NULL when none is left (the refusal counted,
-- nothing taken). The months are changed oldest first, in the order admission and settlement lock them.
CREATE OR REPLACE FUNCTION meter_draw_request(p_account text, p_key text, p_at timestamptz, p_class text) RETURNS date
LANGUAGE plpgsql AS $$
DECLARE
  v_month date := meter_month(p_at);
  v_draw date;
BEGIN
  FOR i IN 1..2 LOOP
    UPDATE usage_months u SET requests_drawn = u.requests_drawn + 1, requests_used = u.requests_used + (u.month = v_month)::int
    WHERE u.account_id = p_account AND u.requests_drawn < u.requests_granted
      AND u.month = (SELECT min(month) FROM usage_months
                     WHERE account_id = p_account AND month BETWEEN (v_month - interval '12 months')::date AND v_month
                       AND requests_drawn < requests_granted)
    RETURNING u.month INTO v_draw;
    EXIT WHEN FOUND;
  END LOOP;
  IF v_draw IS NULL THEN
    PERFORM meter_count_refusal(p_account, p_at, p_class, p_key);
  ELSIF v_draw <> v_month THEN
    UPDATE usage_months SET requests_used = requests_used + 1 WHERE account_id = p_account AND month = v_month;
  END IF;
  RETURN v_draw;
END
$$;

-- A request admitted from a lease, taken now: its monthly request drawn, its slot, if it took one (of
-- the window starting p_window), used (meter_window_taken), and its ledger row written, pending (an
-- export's, deferred; a usage route's, which reads the ledger). drawn false: none was left.
CREATE OR REPLACE FUNCTION meter_draw(
  p_request text, p_account text, p_key text, p_at timestamptz, p_method text, p_route text, p_class text, p_node text,
  p_window timestamptz
) RETURNS TABLE (drawn boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_draw date := meter_draw_request(p_account, p_key, p_at, p_class);
BEGIN
  IF v_draw IS NOT NULL THEN
    PERFORM meter_ledger_pending(p_request, p_account, p_key, p_at, p_method, p_route, p_class, v_draw, p_node);
    IF p_window IS NOT NULL THEN
      PERFORM meter_window_taken(p_account, p_window, 1);
    END IF;
  END IF;
  RETURN QUERY SELECT v_draw IS NOT NULL;
END
$$;

-- Paid request units of the requests model cost p_unit_micros each (the caller's price of the route class),
-- 25 % less from the month's 1,000,000th paid unit and 50 % less from its 10,000,000th.
CREATE OR REPLACE FUNCTION meter_units_price(p_before bigint, p_units bigint, p_unit_micros bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_unit_micros * greatest(0, least(p_before + p_units, 1000000) - greatest(p_before, 0))
       + p_unit_micros * 3 * greatest(0, least(p_before + p_units, 10000000) - greatest(p_before, 1000000)) / 4
       + p_unit_micros * greatest(0, p_before + p_units - greatest(p_before, 10000000)) / 2
$$;

-- Settlement (spec 8.3, 8.4): the request was answered with p_status and p_records records. One function
-- per billing model, over two shared steps: meter_settle_month (the months locked, an export's
-- reservation freed) and meter_settle_ledger (the ledger row, and what a refusal gives back).
-- p_release frees records reserved for an export; p_force charges even past the limit (the records were
-- reserved, or the units payable at reservation); p_void settles the request as not charged. A response
-- the month cannot pay for is refused (charged false) and settled as the 429 it becomes.
-- Each returns the month's records used and reserved after it (NULLs when it did not touch the month),
-- what was charged past the allowance or the prepaid balance, and the ledger's settlement status.

-- The months a settlement may change, locked in month order as admission locks them (no deadlock
-- between the two on a shared server): the month the request drew from, its own, and p_month. Then
-- p_month's row, created when missing, with p_release records of an export's reservation freed.
CREATE OR REPLACE FUNCTION meter_settle_month(p_request text, p_account text, p_month date, p_release bigint) RETURNS usage_months
LANGUAGE plpgsql AS $$
DECLARE
  v_m usage_months;
  v_drawn date;
  v_occurred timestamptz;
BEGIN
  SELECT drawn_month, occurred_at INTO v_drawn, v_occurred FROM ledger WHERE request_id = p_request;
  PERFORM 1 FROM usage_months WHERE account_id = p_account AND month IN (v_drawn, meter_month(v_occurred), p_month) ORDER BY month FOR UPDATE;
  INSERT INTO usage_months AS u (account_id, month) VALUES (p_account, p_month)
  ON CONFLICT (account_id, month) DO UPDATE SET records_reserved = greatest(0, u.records_reserved - p_release)
  RETURNING * INTO v_m;
  RETURN v_m;
END
$$;

-- The pending ledger row of p_request settled as p_status with what it was charged; false when no row
-- was pending (settled already, or no such request). A request answered 429 was refused: it gives its
-- monthly request back (spec 8.3), and the request it counted in the month it was made.
CREATE OR REPLACE FUNCTION meter_settle_ledger(
  p_request text, p_account text, p_status integer, p_class text, p_settlement text, p_records bigint,
  p_overage_micros bigint, p_overage_records bigint, p_units bigint, p_paid_units bigint, p_prepaid_micros bigint
) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_drawn date;
  v_occurred timestamptz;
BEGIN
  UPDATE ledger l SET status = p_status, route_class = p_class, settlement_status = p_settlement,
    records_charged = p_records, overage_micros = p_overage_micros, overage_records = p_overage_records,
    units = p_units, paid_units = p_paid_units, prepaid_micros = p_prepaid_micros,
    drawn_month = CASE WHEN p_status = 429 THEN NULL ELSE l.drawn_month END, counted = l.counted AND p_status <> 429
  FROM (SELECT request_id, drawn_month FROM ledger WHERE request_id = p_request) o
  WHERE l.request_id = o.request_id AND l.settlement_status = 'pending'
  RETURNING o.drawn_month, l.occurred_at INTO v_drawn, v_occurred;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_status = 429 THEN
    UPDATE usage_months SET requests_drawn = requests_drawn - coalesce(month = v_drawn, false)::int,
      requests_used = requests_used - (month = meter_month(v_occurred))::int
    WHERE account_id = p_account AND (month = v_drawn OR month = meter_month(v_occurred));
  END IF;
  RETURN true;
END
$$;

-- The common charge in one statement: p_month takes p_records when they fit (the row is locked and its
-- room checked on its latest version; p_force: they were reserved), within the allowance first, then
-- as overage at p_price. No row when the month has no row yet or the records do not fit. over: the
-- records charged past the allowance.
CREATE OR REPLACE FUNCTION meter_charge_records(
  p_account text, p_month date, p_records bigint, p_allowance bigint, p_force boolean,
  p_overage_enabled boolean, p_price bigint, p_limit_cents bigint
) RETURNS TABLE (records_used bigint, records_reserved bigint, over bigint)
LANGUAGE sql AS $$
  UPDATE usage_months u SET
    records_used = u.records_used + p_records,
    overage_records = u.overage_records + greatest(0, u.records_used + p_records - p_allowance) - greatest(0, u.records_used - p_allowance),
    overage_used_micros = u.overage_used_micros
      + (greatest(0, u.records_used + p_records - p_allowance) - greatest(0, u.records_used - p_allowance)) * coalesce(p_price, 0)
  WHERE u.account_id = p_account AND u.month = p_month
    AND (p_force OR coalesce(p_records <= meter_records_room(u, p_allowance, p_overage_enabled, p_price, p_limit_cents), true))
  RETURNING u.records_used, u.records_reserved, greatest(0, u.records_used - p_allowance) - greatest(0, u.records_used - p_records - p_allowance)
$$;

-- Records model: the records are charged to p_month, within the allowance first, then as overage at
-- p_price up to the account's limit (p_overage_enabled and p_limit_cents: the caller's, read with the key).
CREATE OR REPLACE FUNCTION meter_settle_records(
  p_request text, p_account text, p_month date, p_status integer, p_class text, p_records bigint,
  p_allowance bigint, p_release bigint, p_force boolean, p_void boolean,
  p_overage_enabled boolean, p_price bigint, p_limit_cents bigint
) RETURNS TABLE (charged boolean, records_used bigint, records_reserved bigint, overage_micros bigint, settlement text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_m usage_months;
  v_room bigint;
  v_over bigint := 0;
  v_used bigint;
  v_reserved bigint;
  v_settlement text;
  v_status integer := p_status;
  v_refused boolean := p_void OR p_status >= 400;
BEGIN
  IF p_release = 0 AND (v_refused OR p_records = 0) THEN
    -- Nothing to charge: the ledger row alone (counts, errors, redirects and empty pages).
    v_settlement := CASE WHEN v_refused THEN 'not_charged' ELSE 'included' END;
    IF NOT meter_settle_ledger(p_request, p_account, p_status, p_class, v_settlement, 0, 0, 0, 0, 0, 0) THEN
      RETURN QUERY SELECT false, NULL::bigint, NULL::bigint, 0::bigint, NULL::text;
      RETURN;
    END IF;
    RETURN QUERY SELECT true, NULL::bigint, NULL::bigint, 0::bigint, v_settlement;
    RETURN;
  END IF;

  IF p_release = 0 THEN
    SELECT c.records_used, c.records_reserved, c.over INTO v_used, v_reserved, v_over
    FROM meter_charge_records(p_account, p_month, p_records, p_allowance, p_force, p_overage_enabled, p_price, p_limit_cents) c;
    IF FOUND THEN
      v_settlement := CASE WHEN v_over > 0 THEN 'overage' ELSE 'included' END;
      IF NOT meter_settle_ledger(p_request, p_account, p_status, p_class, v_settlement, p_records, v_over * coalesce(p_price, 0), v_over, 0, 0, 0) THEN
        RAISE EXCEPTION 'request % is not pending settlement', p_request;
      END IF;
      RETURN QUERY SELECT true, v_used, v_reserved, v_over * coalesce(p_price, 0), v_settlement;
      RETURN;
    END IF;
    -- No month row yet, or the records do not fit: decided below.
    v_over := 0;
  END IF;

  v_m := meter_settle_month(p_request, p_account, p_month, p_release);
  v_room := meter_records_room(v_m, p_allowance, p_overage_enabled, p_price, p_limit_cents);
  IF NOT v_refused AND NOT p_force AND v_room IS NOT NULL AND p_records > v_room THEN
    v_status := 429;
    v_refused := true;
  END IF;
  IF v_refused THEN
    v_settlement := 'not_charged';
    p_records := 0;
  ELSE
    v_over := greatest(0, v_m.records_used + p_records - p_allowance) - greatest(0, v_m.records_used - p_allowance);
    v_settlement := CASE WHEN v_over > 0 THEN 'overage' ELSE 'included' END;
  END IF;
  IF NOT meter_settle_ledger(p_request, p_account, v_status, p_class, v_settlement, p_records, v_over * coalesce(p_price, 0), v_over, 0, 0, 0) THEN
    -- Settled already (or no such request): nothing of this call may stay.
    RAISE EXCEPTION 'request % is not pending settlement', p_request;
  END IF;
  UPDATE usage_months SET records_used = records_used + p_records, overage_records = overage_records + v_over,
    overage_used_micros = overage_used_micros + v_over * coalesce(p_price, 0)
  WHERE account_id = p_account AND month = p_month AND p_records > 0;
  RETURN QUERY SELECT v_status = p_status, v_m.records_used + p_records, v_m.records_reserved, v_over * coalesce(p_price, 0), v_settlement;
END
$$;

-- A request admitted from a lease, taken and settled in one call: its monthly request drawn
-- (meter_draw_request) and its slot, if it took one (of the window starting p_window), used; then, for an answer
-- with nothing to charge or records that fit, its ledger row written settled (what meter_settle_records
-- would make of a pending row); any other (records that do not fit, a 429) is written pending and
-- settled by meter_settle_records. Outcome 'requests' when no monthly request was left (nothing taken,
-- the settlement's columns NULL).
CREATE OR REPLACE FUNCTION meter_settle_leased(
  p_request text, p_account text, p_key text, p_at timestamptz, p_method text, p_route text, p_class text, p_node text,
  p_window timestamptz, p_month date, p_status integer, p_records bigint, p_allowance bigint, p_force boolean, p_void boolean,
  p_overage_enabled boolean, p_price bigint, p_limit_cents bigint
) RETURNS TABLE (
  outcome text, requests_used bigint, requests_left bigint,
  charged boolean, records_used bigint, records_reserved bigint, overage_micros bigint, settlement text
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_draw date := meter_draw_request(p_account, p_key, p_at, p_class);
  v_refused boolean := p_void OR p_status >= 400;
  v_settlement text;
  c record;
BEGIN
  IF v_draw IS NULL THEN
    RETURN QUERY SELECT 'requests'::text,
      (SELECT u.requests_used FROM usage_months u WHERE u.account_id = p_account AND u.month = meter_month(p_at)),
      0::bigint, false, NULL::bigint, NULL::bigint, 0::bigint, NULL::text;
    RETURN;
  END IF;
  IF p_window IS NOT NULL THEN
    PERFORM meter_window_taken(p_account, p_window, 1);
  END IF;
  IF p_status <> 429 AND (v_refused OR p_records = 0) THEN
    v_settlement := CASE WHEN v_refused THEN 'not_charged' ELSE 'included' END;
    INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, settlement_status, drawn_month, node_id, counted)
    VALUES (p_request, p_account, p_key, p_at, p_method, p_route, p_class, p_status, v_settlement, v_draw, p_node, true);
    RETURN QUERY SELECT 'admitted'::text, NULL::bigint, NULL::bigint, true, NULL::bigint, NULL::bigint, 0::bigint, v_settlement;
    RETURN;
  END IF;
  IF p_status <> 429 THEN
    SELECT * INTO c FROM meter_charge_records(p_account, p_month, p_records, p_allowance, p_force, p_overage_enabled, p_price, p_limit_cents);
    IF FOUND THEN
      v_settlement := CASE WHEN c.over > 0 THEN 'overage' ELSE 'included' END;
      INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, records_charged,
        overage_micros, overage_records, settlement_status, drawn_month, node_id, counted)
      VALUES (p_request, p_account, p_key, p_at, p_method, p_route, p_class, p_status, p_records,
        c.over * coalesce(p_price, 0), c.over, v_settlement, v_draw, p_node, true);
      RETURN QUERY SELECT 'admitted'::text, NULL::bigint, NULL::bigint, true, c.records_used, c.records_reserved, c.over * coalesce(p_price, 0), v_settlement;
      RETURN;
    END IF;
  END IF;
  PERFORM meter_ledger_pending(p_request, p_account, p_key, p_at, p_method, p_route, p_class, v_draw, p_node);
  RETURN QUERY SELECT 'admitted'::text, NULL::bigint, NULL::bigint, s.charged, s.records_used, s.records_reserved, s.overage_micros, s.settlement
  FROM meter_settle_records(p_request, p_account, p_month, p_status, p_class, p_records, p_allowance, 0, p_force, p_void,
    p_overage_enabled, p_price, p_limit_cents) s;
END
$$;

-- The rows of a batch of leased settlements (meter_settle_journaled's p_rows), as a table. A row
-- journaled before p_window was an argument has it NULL: its server's slots were all taken in the store.
DROP FUNCTION IF EXISTS meter_batch_rows(jsonb);
CREATE OR REPLACE FUNCTION meter_batch_rows(p_rows jsonb) RETURNS TABLE (
  i integer, p_request text, p_account text, p_key text, p_at timestamptz, p_method text, p_route text, p_class text, p_node text,
  p_window timestamptz, p_month date, p_status integer, p_records bigint, p_allowance bigint, p_force boolean, p_void boolean,
  p_overage_enabled boolean, p_price bigint, p_limit_cents bigint
)
LANGUAGE sql STABLE AS $$
  SELECT * FROM jsonb_to_recordset(p_rows) AS x(i integer, p_request text, p_account text, p_key text, p_at timestamptz,
    p_method text, p_route text, p_class text, p_node text, p_window timestamptz, p_month date, p_status integer, p_records bigint,
    p_allowance bigint, p_force boolean, p_void boolean, p_overage_enabled boolean, p_price bigint, p_limit_cents bigint)
$$;

-- The month an account's next request of p_month draws from: the oldest of the last 12 and this one with
-- requests granted and not drawn (NULL: none).
CREATE OR REPLACE FUNCTION meter_draw_month(p_account text, p_month date) RETURNS usage_months
LANGUAGE sql STABLE AS $$
  SELECT u FROM usage_months u
  WHERE u.account_id = p_account AND u.month BETWEEN (p_month - interval '12 months')::date AND p_month
    AND u.requests_drawn < u.requests_granted
  ORDER BY u.month LIMIT 1
$$;

-- Where each account of a batch draws its monthly requests from, when settling the whole batch in one
-- statement (meter_settle_batch) ends exactly as settling its rows one by one in order would
-- (meter_settle_leased): every row is one settled in memory (no 429; records, if any, forced: they fit
-- or were sent); no request is in it twice or in the ledger already; each account's rows fall in one
-- month and all draw from the same month, the oldest with requests left (where meter_draw_request
-- would draw each of them), which has room for all; and each month charged records has its row, one
-- allowance and one price. No row at all when any of this does not hold.
CREATE OR REPLACE FUNCTION meter_batch_draws(p_rows jsonb) RETURNS TABLE (account_id text, draw date, v_month date, k bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
    WITH b AS (
      SELECT x.*, NOT (x.p_void OR x.p_status >= 400 OR x.p_records = 0) AS charging FROM meter_batch_rows(p_rows) x
    ), g AS (
      SELECT b.p_account, min(meter_month(b.p_at)) AS v_month, max(meter_month(b.p_at)) AS last_month, count(*) AS k
      FROM b GROUP BY b.p_account
    ), d AS (
      SELECT g.*, meter_draw_month(g.p_account, g.v_month) AS u FROM g
    ), c AS (
      SELECT b.p_account, b.p_month FROM b WHERE b.charging
      GROUP BY b.p_account, b.p_month
      HAVING count(DISTINCT b.p_allowance) = 1 AND count(DISTINCT coalesce(b.p_price, -1)) = 1
    )
    SELECT d.p_account, (d.u).month, d.v_month, d.k FROM d
    WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.p_status = 429 OR NOT (b.p_force OR NOT b.charging))
      AND (SELECT count(*) = count(DISTINCT b.p_request) FROM b)
      AND NOT EXISTS (SELECT 1 FROM b JOIN ledger l ON l.request_id = b.p_request)
      AND (SELECT count(*) FROM (SELECT DISTINCT b.p_account, b.p_month FROM b WHERE b.charging) AS months)
        = (SELECT count(*) FROM c JOIN usage_months u ON u.account_id = c.p_account AND u.month = c.p_month)
      AND (SELECT bool_and(d2.v_month = d2.last_month AND (d2.u).month IS NOT NULL AND (d2.u).requests_granted - (d2.u).requests_drawn >= d2.k)
           FROM d d2);
END
$$;

-- The batch settled in one statement, when meter_batch_draws says where its requests are drawn from
-- (p_accounts drawing p_counts requests from p_draws, counted in p_current): each month row updated once
-- with the requests drawn from it, those counted in it and the records charged to it, and the ledger rows
-- written in the batch's order with each row's records and its share of the overage as
-- meter_charge_records would have found them one by one.
CREATE OR REPLACE FUNCTION meter_settle_batch(p_rows jsonb, p_accounts text[], p_draws date[], p_current date[], p_counts bigint[])
RETURNS TABLE (
  i integer, outcome text, requests_used bigint, requests_left bigint,
  charged boolean, records_used bigint, records_reserved bigint, overage_micros bigint, settlement text
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH b AS (
      SELECT x.*, NOT (x.p_void OR x.p_status >= 400 OR x.p_records = 0) AS charging,
        (sum(x.p_records) FILTER (WHERE NOT (x.p_void OR x.p_status >= 400 OR x.p_records = 0))
          OVER (PARTITION BY x.p_account, x.p_month ORDER BY x.i))::bigint AS upto
      FROM meter_batch_rows(p_rows) x
    ), draws AS (
      SELECT * FROM unnest(p_accounts, p_draws, p_current, p_counts) AS d(account_id, draw, v_month, k)
    ), deltas AS (
      SELECT x.account_id, x.month, sum(x.drawn)::bigint AS drawn, sum(x.used)::bigint AS used, sum(x.r)::bigint AS r,
        min(x.a) AS a, min(x.price) AS price
      FROM (
        SELECT d.account_id, d.draw AS month, d.k AS drawn, CASE WHEN d.draw = d.v_month THEN d.k ELSE 0 END AS used,
          0::bigint AS r, NULL::bigint AS a, NULL::bigint AS price
        FROM draws d
        UNION ALL
        SELECT d.account_id, d.v_month, 0, d.k, 0, NULL, NULL FROM draws d WHERE d.draw <> d.v_month
        UNION ALL
        SELECT b.p_account, b.p_month, 0, 0, sum(b.p_records), min(b.p_allowance), min(b.p_price)
        FROM b WHERE b.charging GROUP BY b.p_account, b.p_month
      ) AS x
      GROUP BY x.account_id, x.month
    ), months AS (
      UPDATE usage_months u SET requests_drawn = u.requests_drawn + x.drawn, requests_used = u.requests_used + x.used,
        records_used = u.records_used + x.r,
        overage_records = u.overage_records
          + CASE WHEN x.r > 0 THEN greatest(0, u.records_used + x.r - x.a) - greatest(0, u.records_used - x.a) ELSE 0 END,
        overage_used_micros = u.overage_used_micros
          + CASE WHEN x.r > 0 THEN (greatest(0, u.records_used + x.r - x.a) - greatest(0, u.records_used - x.a)) * coalesce(x.price, 0)
            ELSE 0 END
      FROM deltas x WHERE u.account_id = x.account_id AND u.month = x.month
      RETURNING u.account_id, u.month, u.records_used - x.r AS before, u.records_reserved
    ), settled AS (
      SELECT b.*, d.draw, c.records_reserved AS reserved, c.before + b.upto AS used,
        CASE WHEN b.charging
          THEN greatest(0, c.before + b.upto - b.p_allowance) - greatest(0, c.before + b.upto - b.p_records - b.p_allowance) ELSE 0 END AS over
      FROM b
      JOIN draws d ON d.account_id = b.p_account
      LEFT JOIN months c ON b.charging AND c.account_id = b.p_account AND c.month = b.p_month
    ), slots AS (
      -- The slots of the batch's requests used (meter_window_taken, row by row): those of each account's
      -- latest window in the batch, which the row is brought to; those of a window before it count no more.
      INSERT INTO rate_windows AS w (account_id, window_start, used, held)
      SELECT x.p_account, x.p_window, count(*), 0
      FROM (SELECT b.p_account, b.p_window, max(b.p_window) OVER (PARTITION BY b.p_account) AS latest FROM b
            WHERE b.p_window IS NOT NULL) AS x
      WHERE x.p_window = x.latest
      GROUP BY x.p_account, x.p_window
      ON CONFLICT (account_id) DO UPDATE
        SET (window_start, used, held) = (SELECT * FROM meter_window_next(w, excluded.window_start, excluded.used))
    ), written AS (
      INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, records_charged,
        overage_micros, overage_records, settlement_status, drawn_month, node_id, counted)
      SELECT s.p_request, s.p_account, s.p_key, s.p_at, s.p_method, s.p_route, s.p_class, s.p_status,
        CASE WHEN s.charging THEN s.p_records ELSE 0 END, s.over * coalesce(s.p_price, 0), s.over,
        CASE WHEN NOT s.charging AND (s.p_void OR s.p_status >= 400) THEN 'not_charged' WHEN s.over > 0 THEN 'overage' ELSE 'included' END,
        s.draw, s.p_node, true
      FROM settled s ORDER BY s.i
      RETURNING request_id, settlement_status
    )
    SELECT s.i, 'admitted'::text, NULL::bigint, NULL::bigint, true,
      CASE WHEN s.charging THEN s.used END, CASE WHEN s.charging THEN s.reserved END, s.over * coalesce(s.p_price, 0), w.settlement_status
    FROM settled s JOIN written w ON w.request_id = s.p_request
    ORDER BY s.i;
END
$$;

-- Requests admitted from leases, taken and settled together (group commit, ADR 0013), some of them
-- settled in memory and journaled first ("The journal"): each element of p_rows (an object of
-- meter_settle_leased's arguments by name, and i, its place) settled as meter_settle_leased settles it,
-- in the order given, all in one transaction (the commit of a call in the embedded store costs more than a
-- settlement's statements), and how far the journal p_journal is settled (file p_seq, byte p_position)
-- recorded in the same transaction, so that a start settles exactly the lines past it (p_seq NULL: no
-- journaled row here). A batch meter_batch_draws can settle at once is settled by meter_settle_batch (a
-- few statements for the whole batch: row by row, the embedded store spent 0.15-0.2 ms a row); any other
-- row by row. A row whose request is in the ledger already (a call tried again after its commit's answer
-- was lost) is answered as it was settled, not settled twice: looked up row by row, so by the ledger's key
-- whatever its size. One row answered per element, with its i.
DROP FUNCTION IF EXISTS meter_settle_leased_batch(jsonb);
CREATE OR REPLACE FUNCTION meter_settle_journaled(p_rows jsonb, p_journal text, p_seq bigint, p_position bigint) RETURNS TABLE (
  i integer, outcome text, requests_used bigint, requests_left bigint,
  charged boolean, records_used bigint, records_reserved bigint, overage_micros bigint, settlement text
)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  v_done record;
  v_accounts text[];
  v_draws date[];
  v_current date[];
  v_counts bigint[];
BEGIN
  SELECT array_agg(d.account_id), array_agg(d.draw), array_agg(d.v_month), array_agg(d.k)
  INTO v_accounts, v_draws, v_current, v_counts
  FROM meter_batch_draws(p_rows) d;
  IF v_accounts IS NOT NULL THEN
    RETURN QUERY SELECT * FROM meter_settle_batch(p_rows, v_accounts, v_draws, v_current, v_counts);
  ELSE
    FOR r IN SELECT * FROM meter_batch_rows(p_rows) b ORDER BY b.i
    LOOP
      SELECT l.overage_micros, l.settlement_status INTO v_done FROM ledger l WHERE l.request_id = r.p_request;
      IF FOUND THEN
        RETURN QUERY SELECT r.i, 'admitted'::text, NULL::bigint, NULL::bigint, true, NULL::bigint, NULL::bigint,
          v_done.overage_micros, v_done.settlement_status;
        CONTINUE;
      END IF;
      RETURN QUERY SELECT r.i, s.* FROM meter_settle_leased(r.p_request, r.p_account, r.p_key, r.p_at, r.p_method, r.p_route,
        r.p_class, r.p_node, r.p_window, r.p_month, r.p_status, r.p_records, r.p_allowance, r.p_force,
        r.p_void, r.p_overage_enabled, r.p_price, r.p_limit_cents) s;
    END LOOP;
  END IF;
  IF p_seq IS NOT NULL THEN
    INSERT INTO meter_journal AS j (journal, seq, position) VALUES (p_journal, p_seq, p_position)
    ON CONFLICT (journal) DO UPDATE SET seq = excluded.seq, position = excluded.position;
  END IF;
END
$$;

-- A batch of journaled settlements (ADR 0013, "Journaled batches counted, not joined"), each element of the
-- arrays one request, in order: settled as meter_settle_journaled settles it when meter_batch_draws finds
-- the batch settles at once, in fewer statements, and with none of the figures a waiting request reads (a
-- journaled request's answer is sent: it needs none). Taken only when every row is one meter_settle_leased
-- settles as the server did in memory: no 429, records forced or none, no request twice or in the ledger
-- already, each account's requests drawn from one month with room for them all (as meter_batch_draws),
-- and each charged month with its row and room for its records in its allowance (no overage). Otherwise
-- nothing is written and NULL is answered: the caller settles the batch by meter_settle_journaled. On one
-- writer's store (the embedded store's journal): its reads lock nothing. Answers the rows written.
-- Its plans are kept from its first calls, made on a store still small (PGlite runs no autovacuum, so the
-- tables have no statistics): with sequential scans allowed they read the ledger and the months whole
-- as those grow (measured: 40 ms a call at 20,000 ledger rows, 150 at 80,000); its look-ups are by key.
CREATE OR REPLACE FUNCTION meter_settle_counted(
  p_requests text[], p_accounts text[], p_keys text[], p_ats timestamptz[], p_methods text[], p_routes text[], p_classes text[],
  p_nodes text[], p_windows timestamptz[], p_months date[], p_statuses integer[], p_records bigint[], p_allowances bigint[],
  p_forces boolean[], p_voids boolean[], p_journal text, p_seq bigint, p_position bigint
) RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
  v_ok boolean;
  v_accounts text[];
  v_draws date[];
  v_current date[];
  v_counts bigint[];
  v_written bigint;
BEGIN
  WITH b AS (
    SELECT x.*, NOT (x.void OR x.status >= 400 OR x.records = 0) AS charging
    FROM unnest(p_requests, p_accounts, p_ats, p_months, p_statuses, p_records, p_allowances, p_forces, p_voids)
      AS x(request, account, at, month, status, records, allowance, force, void)
  ), g AS (
    SELECT b.account, min(meter_month(b.at)) AS v_month, max(meter_month(b.at)) AS last_month, count(*) AS k FROM b GROUP BY b.account
  ), d AS (
    SELECT g.*, meter_draw_month(g.account, g.v_month) AS u FROM g
  ), r AS (
    SELECT b.account, b.month, sum(b.records) AS r, min(b.allowance) AS a, max(b.allowance) AS a_max FROM b WHERE b.charging
    GROUP BY b.account, b.month
  )
  SELECT
    NOT EXISTS (SELECT 1 FROM b WHERE b.status = 429 OR NOT (b.force OR NOT b.charging))
      AND (SELECT count(*) = count(DISTINCT b.request) FROM b)
      AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.request_id = ANY (p_requests))
      AND (SELECT bool_and(d.v_month = d.last_month AND (d.u).month IS NOT NULL AND (d.u).requests_granted - (d.u).requests_drawn >= d.k)
           FROM d)
      AND (SELECT coalesce(bool_and(u.account_id IS NOT NULL AND r.a = r.a_max AND u.records_used + r.r <= r.a), true)
           FROM r LEFT JOIN usage_months u ON u.account_id = r.account AND u.month = r.month),
    (SELECT array_agg(d.account) FROM d), (SELECT array_agg((d.u).month) FROM d), (SELECT array_agg(d.v_month) FROM d),
    (SELECT array_agg(d.k) FROM d)
  INTO v_ok, v_accounts, v_draws, v_current, v_counts;
  IF NOT coalesce(v_ok, false) THEN
    RETURN NULL;
  END IF;

  -- Each month row once: the requests drawn from it, those counted in it, the records charged to it.
  UPDATE usage_months u SET requests_drawn = u.requests_drawn + x.drawn, requests_used = u.requests_used + x.used,
    records_used = u.records_used + x.r
  FROM (
    SELECT y.account_id, y.month, sum(y.drawn)::bigint AS drawn, sum(y.used)::bigint AS used, sum(y.r)::bigint AS r
    FROM (
      SELECT d.account_id, d.draw AS month, d.k AS drawn, CASE WHEN d.draw = d.v_month THEN d.k ELSE 0 END AS used, 0::bigint AS r
      FROM unnest(v_accounts, v_draws, v_current, v_counts) AS d(account_id, draw, v_month, k)
      UNION ALL
      SELECT d.account_id, d.v_month, 0, d.k, 0
      FROM unnest(v_accounts, v_draws, v_current, v_counts) AS d(account_id, draw, v_month, k) WHERE d.draw <> d.v_month
      UNION ALL
      SELECT b.account, b.month, 0, 0, sum(b.records)
      FROM unnest(p_accounts, p_months, p_statuses, p_records, p_voids) AS b(account, month, status, records, void)
      WHERE NOT (b.void OR b.status >= 400 OR b.records = 0)
      GROUP BY b.account, b.month
    ) AS y
    GROUP BY y.account_id, y.month
  ) AS x
  WHERE u.account_id = x.account_id AND u.month = x.month;

  -- The slots used (meter_window_taken, as meter_settle_batch takes them): each account's latest window in the batch.
  INSERT INTO rate_windows AS w (account_id, window_start, used, held)
  SELECT x.account, x.window_start, count(*), 0
  FROM (SELECT b.account, b.window_start, max(b.window_start) OVER (PARTITION BY b.account) AS latest
        FROM unnest(p_accounts, p_windows) AS b(account, window_start) WHERE b.window_start IS NOT NULL) AS x
  WHERE x.window_start = x.latest
  GROUP BY x.account, x.window_start
  ON CONFLICT (account_id) DO UPDATE
    SET (window_start, used, held) = (SELECT * FROM meter_window_next(w, excluded.window_start, excluded.used));

  INSERT INTO ledger (request_id, account_id, api_key_id, occurred_at, method, route, route_class, status, records_charged,
    overage_micros, overage_records, settlement_status, drawn_month, node_id, counted)
  SELECT b.request, b.account, b.key, b.at, b.method, b.route, b.class, b.status,
    CASE WHEN b.void OR b.status >= 400 THEN 0 ELSE b.records END, 0, 0,
    CASE WHEN b.void OR b.status >= 400 THEN 'not_charged' ELSE 'included' END,
    d.draw, b.node, true
  FROM unnest(p_requests, p_accounts, p_keys, p_ats, p_methods, p_routes, p_classes, p_nodes, p_statuses, p_records, p_voids)
    WITH ORDINALITY AS b(request, account, key, at, method, route, class, node, status, records, void, n)
  JOIN unnest(v_accounts, v_draws) AS d(account_id, draw) ON d.account_id = b.account
  ORDER BY b.n;
  GET DIAGNOSTICS v_written = ROW_COUNT;

  IF p_seq IS NOT NULL THEN
    INSERT INTO meter_journal AS j (journal, seq, position) VALUES (p_journal, p_seq, p_position)
    ON CONFLICT (journal) DO UPDATE SET seq = excluded.seq, position = excluded.position;
  END IF;
  RETURN v_written;
END
$$;

-- Requests model: the request's units (p_units, the caller's count) go first against the key's free
-- units of the day (p_daily_free); the rest are paid at p_unit_micros each (meter_units_price), from the
-- prepaid balance first, then as overage within the account's limit (the account row, locked, holds
-- both). The records are counted in p_month, not charged.
CREATE OR REPLACE FUNCTION meter_settle_requests(
  p_request text, p_account text, p_at timestamptz, p_month date, p_status integer, p_class text, p_records bigint,
  p_daily_free bigint, p_release bigint, p_force boolean, p_void boolean, p_units bigint, p_unit_micros bigint
) RETURNS TABLE (charged boolean, records_used bigint, records_reserved bigint, overage_micros bigint, settlement text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_account accounts;
  v_m usage_months;
  v_key text;
  v_day date := (p_at AT TIME ZONE 'UTC')::date;
  v_free bigint;
  v_paid bigint := 0;
  v_billed bigint := 0;
  v_prepaid bigint := 0;
  v_over bigint := 0;
  v_units bigint := 0;
  v_status integer := p_status;
  v_settlement text := 'not_charged';
BEGIN
  v_m := meter_settle_month(p_request, p_account, p_month, p_release);
  IF p_void OR p_status >= 400 THEN
    p_records := 0;
  ELSE
    SELECT * INTO v_account FROM accounts WHERE account_id = p_account FOR UPDATE;
    SELECT api_key_id INTO v_key FROM ledger WHERE request_id = p_request;
    INSERT INTO key_days AS k (key_id, day) VALUES (v_key, v_day)
    ON CONFLICT (key_id, day) DO UPDATE SET key_id = k.key_id
    RETURNING free_units INTO v_free;
    v_paid := greatest(0, p_units - greatest(0, p_daily_free - v_free));
    v_billed := meter_units_price(v_m.paid_units, v_paid, p_unit_micros);
    v_prepaid := least(v_billed, v_account.prepaid_micros);
    v_over := v_billed - v_prepaid;
    IF v_over > 0 AND NOT p_force AND NOT (v_account.overage_enabled AND (
      v_account.overage_limit_cents IS NULL OR v_m.overage_used_micros + v_over <= v_account.overage_limit_cents * 10000)) THEN
      -- Neither the prepaid balance nor overage can pay: refused.
      v_status := 429;
      p_records := 0;
      v_billed := 0;
      v_paid := 0;
      v_prepaid := 0;
      v_over := 0;
    ELSE
      UPDATE key_days SET free_units = free_units + (p_units - v_paid), paid_units = paid_units + v_paid
      WHERE key_id = v_key AND day = v_day;
      IF v_prepaid > 0 THEN
        UPDATE accounts SET prepaid_micros = prepaid_micros - v_prepaid WHERE account_id = p_account;
      END IF;
      v_units := p_units;
      v_settlement := CASE WHEN v_over > 0 THEN 'overage' ELSE 'included' END;
    END IF;
  END IF;
  IF NOT meter_settle_ledger(p_request, p_account, v_status, p_class, v_settlement, p_records, v_over, 0, v_units, v_paid, v_prepaid) THEN
    -- Settled already (or no such request): nothing of this call may stay.
    RAISE EXCEPTION 'request % is not pending settlement', p_request;
  END IF;
  UPDATE usage_months SET records_used = records_used + p_records, overage_used_micros = overage_used_micros + v_over,
    paid_units = paid_units + v_paid, paid_micros = paid_micros + v_billed
  WHERE account_id = p_account AND month = p_month AND (p_records > 0 OR v_over > 0 OR v_paid > 0);
  RETURN QUERY SELECT v_status = p_status, v_m.records_used + p_records, v_m.records_reserved, v_over, v_settlement;
END
$$;

-- Sets `p_records` aside for an export, when the month can take them (reserved false otherwise).
-- Records model: within the allowance, then overage within its limit. Requests model: the export's
-- request units (p_units, the caller's count) past the key's free units of the day must be payable at
-- p_unit_micros each from the prepaid balance or by overage within its limit; they are charged at completion.
CREATE OR REPLACE FUNCTION meter_reserve(
  p_account text, p_month date, p_records bigint, p_allowance bigint, p_key text, p_at timestamptz, p_daily_free bigint,
  p_units bigint, p_unit_micros bigint
) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_account accounts;
  v_m usage_months;
  v_room bigint;
  v_free bigint;
  v_paid bigint;
  v_over bigint;
BEGIN
  SELECT * INTO v_account FROM accounts WHERE account_id = p_account;
  v_m := meter_lock_month(p_account, p_month);
  IF v_account.billing_model = 'records' THEN
    v_room := meter_records_room(v_m, p_allowance, v_account.overage_enabled, v_account.overage_price_micros, v_account.overage_limit_cents);
    IF v_room IS NOT NULL AND p_records > v_room THEN
      RETURN false;
    END IF;
  ELSE
    SELECT coalesce(max(free_units), 0) INTO v_free FROM key_days WHERE key_id = p_key AND day = (p_at AT TIME ZONE 'UTC')::date;
    v_paid := greatest(0, p_units - greatest(0, p_daily_free - v_free));
    v_over := greatest(0, meter_units_price(v_m.paid_units, v_paid, p_unit_micros) - v_account.prepaid_micros);
    IF v_over > 0 AND NOT (v_account.overage_enabled AND (
      v_account.overage_limit_cents IS NULL OR v_m.overage_used_micros + v_over <= v_account.overage_limit_cents * 10000)) THEN
      RETURN false;
    END IF;
  END IF;
  UPDATE usage_months SET records_reserved = records_reserved + p_records WHERE account_id = p_account AND month = p_month;
  RETURN true;
END
$$;

-- Gives back what a settled request was charged, when its answer could not be delivered (the client
-- went away before or while it was sent): records, overage, request units and the prepaid balance they
-- drew. The request itself stays counted: the client made the call. The row is settled again as
-- p_status, not_charged. False when the row has left the store or is being compacted (too late).
-- Locks in settlement's order (the month, the ledger row, the account, the key's day), so the two never
-- wait on each other in a cycle.
CREATE OR REPLACE FUNCTION meter_refund(p_request text, p_status integer) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  l ledger;
BEGIN
  SELECT * INTO l FROM ledger WHERE request_id = p_request;
  IF NOT FOUND OR l.settlement_status = 'pending' OR l.segment_id IS NOT NULL THEN
    RETURN false;
  END IF;
  PERFORM 1 FROM usage_months WHERE account_id = l.account_id AND month = meter_month(l.occurred_at) FOR UPDATE;
  UPDATE ledger SET status = p_status, settlement_status = 'not_charged', records_charged = 0, overage_micros = 0,
    overage_records = 0, units = 0, paid_units = 0, prepaid_micros = 0
  WHERE request_id = p_request AND settlement_status <> 'pending' AND segment_id IS NULL;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE usage_months SET records_used = records_used - l.records_charged, overage_records = overage_records - l.overage_records,
    overage_used_micros = overage_used_micros - l.overage_micros, paid_units = paid_units - l.paid_units,
    paid_micros = paid_micros - CASE WHEN l.units > 0 THEN l.prepaid_micros + l.overage_micros ELSE 0 END
  WHERE account_id = l.account_id AND month = meter_month(l.occurred_at)
    AND (l.records_charged > 0 OR l.overage_micros > 0 OR l.paid_units > 0);
  IF l.prepaid_micros > 0 THEN
    UPDATE accounts SET prepaid_micros = prepaid_micros + l.prepaid_micros WHERE account_id = l.account_id;
  END IF;
  IF l.units > 0 THEN
    UPDATE key_days SET free_units = free_units - (l.units - l.paid_units), paid_units = paid_units - l.paid_units
    WHERE key_id = l.api_key_id AND day = (l.occurred_at AT TIME ZONE 'UTC')::date;
  END IF;
  RETURN true;
END
$$;

-- Settles a request that was never answered (its server stopped before settling it, and every answer
-- is settled before its first byte): not charged, no status, and its monthly request given back.
-- False when it is no longer pending. Locks the months first, as settlement does.
CREATE OR REPLACE FUNCTION meter_abandon(p_request text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  l ledger;
BEGIN
  SELECT * INTO l FROM ledger WHERE request_id = p_request AND settlement_status = 'pending';
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM 1 FROM usage_months WHERE account_id = l.account_id AND (month = l.drawn_month OR month = meter_month(l.occurred_at))
  ORDER BY month FOR UPDATE;
  UPDATE ledger SET status = NULL, settlement_status = 'not_charged', drawn_month = NULL, counted = false
  WHERE request_id = p_request AND settlement_status = 'pending';
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF l.counted THEN
    UPDATE usage_months SET requests_drawn = requests_drawn - coalesce(month = l.drawn_month, false)::int,
      requests_used = requests_used - (month = meter_month(l.occurred_at))::int
    WHERE account_id = l.account_id AND (month = l.drawn_month OR month = meter_month(l.occurred_at));
  END IF;
  RETURN true;
END
$$;
