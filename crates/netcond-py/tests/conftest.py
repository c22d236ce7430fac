import os

# Examples and plots run headless.
os.environ.setdefault("MPLBACKEND", "Agg")
