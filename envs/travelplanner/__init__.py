"""TravelPlanner (Xie et al., 2024): plan a multi-day trip with tools, scored by the official checks.

See docs/travelplanner.md. The env class lives in `coevo.envs.travelplanner.env`.
"""
