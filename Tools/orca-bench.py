#!/usr/bin/env python3
"""ORCA (RVO2, through pyrvo from PyPI) on the missions fleetmesh-bench flies: the anchor of the avoidance table.

Reads JSON on stdin: {"runs": [{"name": str, "starts": [[x, y], ...], "goals": [[x, y], ...]}, ...], and optionally
"radius", "speed", "step", "neighbor_distance", "max_neighbors", "time_horizon", "arrival", "separation", "max_time"}.
Writes JSON on stdout: {"pyrvo": version, "parameters": {...}, "runs": [{"name", "makespan", "arrivals",
"min_separation", "losses", "loss_seconds", "parked", "steps"}, ...]}.

ORCA as published (RVO2's examples/Circle.cc), drone-scaled: agent radius = half the horizontal separation (2.5 m:
two agents touch at 5 m), maximum speed 4 m/s, time step 0.1 s, neighbour distance 10 radii (25 m), at most 10
neighbours, time horizon 10 s; ideal velocity control (an agent flies exactly the velocity ORCA gives it, no
acceleration limit), preferred velocity straight at the goal at full speed, slowing only to stop on it within one
step. An agent has arrived when it is within `arrival` metres of its goal (FleetMesh's arrival test, 1 m) and stays
there to the end; the makespan is the last arrival. Separation is the distance between agents' centres, checked every
step; a loss of separation is a pair coming closer than `separation` (each entry counts once, as FleetMesh counts).
"""
import json
import math
import sys
from importlib import metadata

import pyrvo


def fly(run, p):
    starts, goals = run["starts"], run["goals"]
    n = len(starts)
    sim = pyrvo.RVOSimulator(p["step"], p["neighbor_distance"], p["max_neighbors"], p["time_horizon"], p["time_horizon"],
                             p["radius"], p["speed"])
    for s in starts:
        sim.add_agent((float(s[0]), float(s[1])))
    dt, v, arrival, sep = p["step"], p["speed"], p["arrival"], p["separation"]
    arrived_since = [None] * n
    inside = set()
    losses, loss_seconds, min_sep = 0, 0.0, math.inf
    t, steps = 0.0, 0
    max_steps = int(round(p["max_time"] / dt))
    while steps < max_steps:
        for i in range(n):
            x, y = sim.get_agent_position(i).to_tuple()
            dx, dy = goals[i][0] - x, goals[i][1] - y
            d = math.hypot(dx, dy)
            s = min(v, d / dt)
            sim.set_agent_pref_velocity(i, (dx / d * s, dy / d * s) if d > 1e-9 else (0.0, 0.0))
        sim.do_step()
        steps += 1
        t = steps * dt
        pos = [sim.get_agent_position(i).to_tuple() for i in range(n)]
        for i in range(n):
            d = math.hypot(goals[i][0] - pos[i][0], goals[i][1] - pos[i][1])
            if d <= arrival:
                if arrived_since[i] is None:
                    arrived_since[i] = t
            else:
                arrived_since[i] = None
        for i in range(n):
            xi, yi = pos[i]
            for j in range(i + 1, n):
                d = math.hypot(xi - pos[j][0], yi - pos[j][1])
                if d < min_sep:
                    min_sep = d
                if d < sep:
                    if (i, j) not in inside:
                        losses += 1
                        inside.add((i, j))
                    loss_seconds += dt
                else:
                    inside.discard((i, j))
        # Stop once every agent has stayed on its goal for 3 s (as FleetMesh's settled test).
        if all(a is not None and t - a >= 3 for a in arrived_since):
            break
    parked = all(a is not None for a in arrived_since)
    return {
        "name": run["name"],
        "makespan": max(arrived_since) if parked else None,
        "arrivals": arrived_since,
        "min_separation": min_sep if math.isfinite(min_sep) else None,
        "losses": losses,
        "loss_seconds": round(loss_seconds, 3),
        "parked": parked,
        "steps": steps,
    }


def main():
    request = json.load(sys.stdin)
    p = {"radius": 2.5, "speed": 4.0, "step": 0.1, "neighbor_distance": 25.0, "max_neighbors": 10, "time_horizon": 10.0,
         "arrival": 1.0, "separation": 5.0, "max_time": 300.0}
    p.update({k: request[k] for k in p if k in request})
    out = {"pyrvo": metadata.version("pyrvo"), "parameters": p, "runs": [fly(r, p) for r in request["runs"]]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
