"""What people did with each posted finding (fixed, dismissed, resolved, left open) and the rates that follow;
kept in the operator's Redis under the installation, read by the dashboard, `reviewbot stats` and rule proposals."""
