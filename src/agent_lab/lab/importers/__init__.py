"""Importers: public benchmarks turned into workloads and plugin folders (L4)."""
