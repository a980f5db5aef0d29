-- Questions across every station and drone, asked of the PostgreSQL server nodes ship their flight logs to
-- ([log] postgres; docs/FLIGHTLOG.md, Shipping). Run with: psql -d fleetlog -f Examples/postgres-queries.sql
-- Times are milliseconds since 1970 (UTC); every node records every drone it hears, so group by who recorded.

\echo 'Flights per day, by the node that recorded them'
SELECT to_timestamp(f.start_ms / 1000.0)::date AS day, l.name AS recorded_by, count(*) AS flights,
       round(sum(coalesce(f.end_ms, f.last_ms) - f.start_ms) / 60000.0, 1) AS minutes_flown
FROM fleetmesh.flight f JOIN fleetmesh.log l USING (log)
GROUP BY 1, 2 ORDER BY 1, 2;

\echo 'Closest approaches between two airborne drones (one sample per drone and second, every log)'
WITH s AS (
    SELECT DISTINCT ON (uav, time_ms / 1000) uav, time_ms / 1000 AS sec,
           lat_e7 / 1e7 AS lat, lon_e7 / 1e7 AS lon, alt_mm / 1000.0 AS alt
    FROM fleetmesh.telemetry
    WHERE uav IS NOT NULL AND activity <> 'landed'
    ORDER BY uav, time_ms / 1000, time_ms)
SELECT a.uav AS uav_a, b.uav AS uav_b, to_timestamp(min(a.sec)) AS first_together,
       round(min(sqrt(power((b.lat - a.lat) * 111320, 2)
                      + power((b.lon - a.lon) * 111320 * cos(radians(a.lat)), 2)
                      + power(b.alt - a.alt, 2)))::numeric, 1) AS closest_m
FROM s a JOIN s b ON a.sec = b.sec AND a.uav < b.uav
GROUP BY 1, 2 ORDER BY closest_m LIMIT 20;

\echo 'Commands that were rejected or failed, with the reason'
SELECT to_timestamp(e.time_ms / 1000.0) AS at, l.name AS station, e.uav, e.text
FROM fleetmesh.event e JOIN fleetmesh.log l USING (log)
WHERE e.kind = 'command' AND (e.text LIKE '%rejected%' OR e.text LIKE '%failed%')
ORDER BY e.time_ms;

\echo 'Gotos and trajectories: planned vs answered'
SELECT l.name AS station, p.uav, p.kind, coalesce(p.outcome, 'no answer') AS outcome, count(*) AS commands,
       round(avg(p.finished_ms - p.accepted_ms) / 1000.0, 1) AS mean_seconds
FROM fleetmesh.plan p JOIN fleetmesh.log l USING (log)
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;

\echo 'What each node has shipped: its newest sample and its runs'
SELECT l.name, l.role, count(DISTINCT r.id) AS runs, to_timestamp(max(r.last_write_ms) / 1000.0) AS last_write,
       sum(r.records) AS records, sum(r.dropped) AS dropped
FROM fleetmesh.log l JOIN fleetmesh.run r USING (log)
GROUP BY 1, 2 ORDER BY 1;
