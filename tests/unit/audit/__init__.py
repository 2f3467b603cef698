"""Pure tests of the audit package: SARIF, findings, the tracking issue."""
