"""Environment policies (pi_env): what the simulator draws its tasks from."""
