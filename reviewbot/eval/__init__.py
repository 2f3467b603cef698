"""The evaluation harness: review a suite of cases with known answers and measure recall, precision and cost."""
