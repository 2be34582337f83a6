"""Print pack (ReportLab), drawn from the same config.toml as the bank."""
