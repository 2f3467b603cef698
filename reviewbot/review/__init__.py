"""Pure review logic: diffs, prompts, findings and rendering, with no network."""
