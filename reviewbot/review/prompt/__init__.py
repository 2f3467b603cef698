"""The prompt, third step: the plan of one review (diff, filters, context, layout) turned into sections laid out for
the provider's prefix cache (stable content first, the changing diff last), within a token budget, with its coverage
report, the remembered block layout, token calibration and the tool definitions.
"""
