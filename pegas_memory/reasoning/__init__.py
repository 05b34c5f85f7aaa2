"""Reasoning: semi-naive forward chaining and truth maintenance, pure (`inference`), and
memory_infer / memory_query_graph over PostgreSQL and the graph slice (`rules`)."""

from pegas_memory.reasoning.rules import query_graph, run_inference

__all__ = ["query_graph", "run_inference"]
