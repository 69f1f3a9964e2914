"""Syntactic anonymization beside a DP run (no differential-privacy guarantee): the job, teaching views, the side by side."""
