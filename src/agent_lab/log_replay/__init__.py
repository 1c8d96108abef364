"""Log replay: a logged request replayed through the decision with no LLM, its figures and cases."""
