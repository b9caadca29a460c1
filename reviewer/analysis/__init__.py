"""The analysis report (the paper's tables and plots) for any model and any panel.

Computing, each returning typed results (dataclasses, or tables with named columns):
- `report`: `build_report(project, ReportOptions(), session=)` -> `AnalysisReport`, every
  figure from the caller's snapshot of the database (`reviewer.app.report` opens it);
- `tables`: category/severity counts, chi-square tests, confused pairs, categories by
  distance; `run_tables`: MLA (Table 1) and variable top-k, one row per run;
- `calibration`, `class_balance`, `comparison`, `error_types`, `provisional`, `source_agreement`,
  `zoom_probe`: one computation each (`float16_ace`: QUBA's ACE of a float16 file, all
  classes at once); `run_figures`: a complete run's figures before the panel's review.

Keeping, between reports:
- `cache`: `FigureCache`, the figures kept in the project folder under the key of what
  they read; `inputs`: those keys, aggregates of the tables and files each figure reads.

Rendering, reading those results:
- `report_json`: the JSON of `reviewer report --json` (its `analysis` key);
- `sections`: one module per section of the report (`report_sections`);
- `plots`: the PNG figures; `render`: the Markdown or HTML report (`write_report`).
"""
