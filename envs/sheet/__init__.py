"""AgentGym's Sheet tool env (AgentBoard's sheet tasks) over a real spreadsheet file per session."""
