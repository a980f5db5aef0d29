#!/usr/bin/env python3
"""Open3D's side of `fleetmesh-bench inspection`: load a PCD and voxelise it, timed, and the voxel counts.

Usage: open3d-voxel-bench.py VOXEL RUNS FILE.pcd [FILE.pcd …]
Prints one JSON line per file: load and voxel_down_sample seconds per run, the points read, the down-sampled count,
and the occupied voxels of VoxelGrid.create_from_point_cloud_within_bounds on a grid aligned with the origin (as
FleetMesh's is).
"""
import json
import sys
import time

import numpy as np
import open3d as o3d

voxel, runs = float(sys.argv[1]), int(sys.argv[2])
for path in sys.argv[3:]:
    load, down, total = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        pcd = o3d.io.read_point_cloud(path)
        t1 = time.perf_counter()
        sampled = pcd.voxel_down_sample(voxel)
        t2 = time.perf_counter()
        load.append(t1 - t0)
        down.append(t2 - t1)
        total.append(t2 - t0)
    pts = np.asarray(pcd.points)
    lo = np.floor(pts.min(axis=0) / voxel) * voxel
    hi = (np.floor(pts.max(axis=0) / voxel) + 1) * voxel
    grid = o3d.geometry.VoxelGrid.create_from_point_cloud_within_bounds(pcd, voxel, lo, hi)
    print(json.dumps({
        "file": path, "open3d": o3d.__version__, "points": len(pts), "load": load, "voxelise": down,
        "total": total, "down_sampled": len(sampled.points), "voxels": len(grid.get_voxels()),
    }), flush=True)
