"""The analysis report (the paper's tables and plots) for any model and any panel.

- `tables`: category/severity counts, chi-square tests, confused pairs, categories by distance;
- `calibration`: expected calibration error and reliability bins per run;
- `report`: `build_report(project, ReportOptions())` and its JSON (`report_json`);
- `plots` / `render`: PNG figures and the Markdown or HTML report (`write_report`).
"""
