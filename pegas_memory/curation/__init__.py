"""Curation of what is stored: verification (`verify`), research gaps (`gaps`), the gap-filling
research loop (`research`) and forgetting (`forget`)."""
