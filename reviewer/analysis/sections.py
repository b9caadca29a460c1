"""The report's sections: what `render` writes as Markdown or HTML and the GUI's
Analysis view shows as tabs, each a title, a text, tables of strings and plots.

Every section says what its figures are and where the definition comes from;
the computations live in `report`, `tables`, `comparison`, `calibration`,
`class_balance`, `source_agreement`, `zoom_section` and `reviewer.evaluation.topk`. Every share is shown with its
count and denominator ("41.2% (7/17)"); what a reader must not miss (nothing
locked yet, a chi-square on small expected counts) is a section's warning.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import LIGHT, PlotStyle
from reviewer.analysis.probe_sections import source_section, zoom_section
from reviewer.analysis.provisional import PROVISIONAL
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.section import Section, pct, plot_names, safe_name, share
from reviewer.analysis.tables import FINE_GRAINED_INCL_OOV, PAPER_FINE_GRAINED_SHARE, SMALL_EXPECTED
from reviewer.evaluation.leaderboard import off_trend
from reviewer.terms import CATEGORY_TITLES, SEVERITY_TITLES, Category

# The distance tables' two fine-grained columns: the paper's sense (§4.1) and the category alone.
FINE_GRAINED_PAPER_TITLE = "Fine-grained incl. OOV (the paper's sense)"
FINE_GRAINED_ONLY_TITLE = "Fine-grained, in-vocabulary only"
# The variable top-k table's two ASMA columns (reviewer.evaluation.topk: the cited reading and the other).
ASMA_JACCARD = "ASMA (example-based accuracy |Y∩Ŷ|/|Y∪Ŷ|, as the papers cite)"
ASMA_SHARE_FOUND = "ASMA (share of labels found, m/k)"


def _count_share_table(counts: pd.DataFrame, titles: dict[str, str], *, suffix: str = "") -> pd.DataFrame:
    totals = counts.sum(axis=1)
    out = pd.DataFrame({"model": [f"{m}{suffix}" for m in counts.index]})
    for column in counts.columns:
        out[titles.get(column, column)] = [share(n, t) for n, t in zip(counts[column], totals)]
    out["reviewed"] = totals.astype(str).to_numpy()
    return out


def _chi_table(tests: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"model A": tests["model_a"], "model B": tests["model_b"],
                         "n A": tests["n_a"].astype(str), "n B": tests["n_b"].astype(str),
                         "chi²": [f"{v:.3f}" if pd.notna(v) else "–" for v in tests["chi2"]],
                         "dof": tests["dof"].astype(str),
                         "p": [f"{v:.4f}" if pd.notna(v) else "–" for v in tests["p_value"]],
                         "min expected": [f"{v:.2f}" + (f" (< {SMALL_EXPECTED})" if small else "")
                                          if pd.notna(v) else "–"
                                          for v, small in zip(tests["min_expected"], tests["small_sample"])],
                         "exact p": [f"{p:.4f} ({name})" if small else ""
                                     for p, name, small in zip(tests["fisher_p"], tests["fisher_test"],
                                                               tests["small_sample"])]})


def _small_sample_warning(*tests: pd.DataFrame) -> list[str]:
    small = sum(int(t["small_sample"].sum()) for t in tests if len(t))
    if not small:
        return []
    return [f"{small} test{'s have' if small > 1 else ' has'} an expected count below {SMALL_EXPECTED} (see "
            "'min expected'): the chi-square p is not reliable there; read the exact p beside it (Fisher's exact "
            "test on 2 × 2, Freeman-Halton on larger tables)."]


def report_sections(report: AnalysisReport, out_dir: Path, *, style: PlotStyle = LIGHT) -> list[Section]:
    """The report's sections; writes their PNG files into `out_dir`, coloured by `style`
    (the file report's light default, or a window's theme)."""
    o = report.options
    p = report.summary["project"]
    note = [report.note] if report.note else []
    sections = [Section("Project", f"{p['name']}: {p['images']} images, {p['multilabel_set']} in the multi-label "
                                   f"set, {p['evaluable']} counted by MLA (its validation images, not problematic), "
                                   f"{p['problematic']} problematic; app version {report.summary['app_version']}. "
                                   f"The panel: {report.status.locked} of {report.status.items} items with a final "
                                   "decision.", warnings=note)]

    mla = report.mla
    # A run on a slice is scored on that slice only: say so beside its MLA.
    table = pd.DataFrame({"run": mla["run_id"].astype(str), "model": mla["model"],
                          "images": mla["images_covered"].astype(str) if len(mla) else []})
    for group in ("all", "organisms", "objects"):
        table[f"{group} before → after"] = [f"{pct(b)} → {pct(a)}" for b, a in zip(mla[f"{group}_before"],
                                                                                 mla[f"{group}_after"])]
    # MLA is a mean of per-class accuracies, not one share: its n is the images it scores.
    scored = {r["id"]: r["metrics"]["mla"]["all"]["total"] for r in report.summary["runs"] if r["metrics"]}
    table["images scored"] = [str(scored.get(run_id) or 0) for run_id in mla["run_id"]]
    reasons = sorted({r["metrics"]["mla"]["reason"] for r in report.summary["runs"]
                      if r["metrics"] and r["metrics"]["mla"]["reason"]})
    text = ("MLA as the reference evaluation of the multi-label set (the ImageNet-M evaluation notebook of "
            "google-research/imagenet-mistakes): the multi-label set's validation images, problematic ones "
            "skipped; a top-1 prediction counts when it is among the image's correct or unclear labels; the mean "
            "over original classes of the per-class accuracy. "
            + ("Scored with the paper's Appendix C collapsed class mappings (the reference applies none). "
               if o.collapsed_mappings else "No collapsed class mappings (as the reference). ")
            + "A run on a slice (images other than 'all') is scored on that slice's images only."
            + (" No MLA: " + "; ".join(reasons) + "." if reasons else "") if len(mla) else "No complete run yet.")
    sections.append(Section("Multi-label accuracy before and after the review (Table 1)", text, short="MLA",
                            tables=[("", table)] if len(mla) else []))

    sections.append(_categories_section(report, out_dir, style))
    text = ("Pearson's chi-square test on each pair of models' counts (levels neither model has left out)"
            + (", Yates-corrected on 2 × 2 tables." if o.yates else ", no continuity correction.")
            + f" Where an expected count is below {SMALL_EXPECTED} (Cochran's rule) the test is marked and an exact "
            "p given: Fisher's exact test on 2 × 2 tables, Freeman and Halton's extension on larger ones (exact "
            "enumeration of the tables with the same margins, or Monte Carlo where there are too many: the "
            "resamples and seed are named). Final decisions and imported reviews only.")
    sections.append(Section("Chi-square tests of independence between models", text, short="Chi-square",
                            tables=[("Categories", _chi_table(report.chi_categories)),
                                    ("Severities", _chi_table(report.chi_severities))],
                            warnings=_small_sample_warning(report.chi_categories, report.chi_severities)))

    report.confusions.to_csv(out_dir / "confused_pairs.csv", index=False, lineterminator="\n")
    pairs_section = Section("Confused class pairs", "Each reviewed mistake pairs its prediction with every correct "
                            "label of its image (after the review); unordered pairs, the smaller wnid first. Top 20 "
                            "per model; the full long-tailed list is in confused_pairs.csv.", short="Confusions")
    for model, group in report.confusions.groupby("model"):
        top = group.head(20)
        pairs_section.tables.append((f"{model}: {len(group)} pairs over {int(group['frequency'].sum())} "
                                     "prediction-label links", pd.DataFrame({
                                         "class A": [f"{n} ({w})" for n, w in zip(top["name_a"], top["wnid_a"])],
                                         "class B": [f"{n} ({w})" for n, w in zip(top["name_b"], top["wnid_b"])],
                                         "frequency": top["frequency"].astype(str)})))
        pairs_section.images += plot_names(plots.plot_confusions(report.confusions, out_dir / f"confusions_{safe_name(model)}"
                                                            f".png", model=str(model), style=style))
    sections.append(pairs_section)

    sections.append(_distance_section(report, out_dir, style))
    sections.append(_comparison_section(report))
    sections.append(_topk_section(report, out_dir, style))
    sections.append(_calibration_section(report, out_dir, style, names=dict(zip(mla["run_id"], mla["model"]))))

    board = report.leaderboard
    table = pd.DataFrame({
        "run": board["run_id"].astype(str), "model": board["model"],
        "images": board["images_covered"].astype(str),
        "top-1": ["–" if pd.isna(t) else share(c, t) for c, t in zip(board["top1_correct"], board["top1_total"])],
        "top-1 over": board["top1_scope"].fillna("–").astype(str),
        "MLA after review": [pct(v) for v in board["mla"]],
        o.slice_name: ["–" if pd.isna(s) else f"{share(c, t)}, CI {pct(lo)}–{pct(hi)}"
                       for c, t, s, lo, hi in zip(board["slice_correct"], board["slice_total"], board["slice_score"],
                                                  board["slice_low"], board["slice_high"])],
        "computed in": board["precision"]})
    trend = plots.plot_trend(board, out_dir / "trend.png", slice_name=o.slice_name, style=style)
    unplaced = off_trend(board)
    sections.append(Section(f"Leaderboard on {o.slice_name}", short="Leaderboard",
                            text="Slice score: predictions among the image's correct or unclear labels, with a "
                            "Clopper-Pearson 95% interval." + (
                                f" No run has a score on {o.slice_name!r} (no such slice, or no run predicted its "
                                "images); choose another slice." if len(board) and board["slice_total"].isna().all()
                                else "") + (
                                " Not on the trend plot (run over the slice only, no full-set top-1 of the model): "
                                + ", ".join(unplaced) + "." if unplaced else ""),
                            tables=[("", table)] if len(board) else [],
                            images=["trend.png"] if trend else []))
    sections.append(source_section(report, out_dir, style))
    sections.append(zoom_section(report.zoom))
    return sections


def _categories_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    """Table 2: category and severity shares per model, final; then, when asked, provisional."""
    o = report.options
    severity_note = "Borderline kept apart." if o.keep_borderline else "Borderline counted as Minor (as the paper)."
    unrated = {m: u for m, u in report.unrated.items() if u["category"] or u["severity"]}
    text = (f"Reviewed mistakes of each model: imported published reviews and the panel's final decisions. "
            f"{severity_note}")
    if unrated:
        text += " Left out where the panel set no value: " + "; ".join(
            f"{m}: {u['category']} without category, {u['severity']} without severity" for m, u in unrated.items())
    section = Section(
        "Failure categories and severities (Table 2)", text, short="Categories",
        warnings=[report.note] if report.note else [],
        tables=[("Categories", _count_share_table(report.categories, CATEGORY_TITLES)),
                ("Severities", _count_share_table(report.severities, SEVERITY_TITLES))],
        images=plot_names(plots.plot_shares(report.categories, report.severities, out_dir / "shares.png", style=style)))
    if o.provisional and len(report.provisional_categories):
        reviewed = report.provisional_reviewed
        marked = (reviewed["source"] == PROVISIONAL).groupby(reviewed["model"]).sum()
        caption = ("PROVISIONAL, not locked: the final decisions plus the majority of the current votes on "
                   f"{report.status.provisional} items without one")
        for name, counts, titles in (("Categories", report.provisional_categories, CATEGORY_TITLES),
                                     ("Severities", report.provisional_severities, SEVERITY_TITLES)):
            table = _count_share_table(counts, titles, suffix=f" ({PROVISIONAL})")
            table["of them provisional"] = [str(int(marked.get(m, 0))) for m in counts.index]
            section.tables.append((f"{name}, {caption}", table))
        section.images += plot_names(plots.plot_shares(
            report.provisional_categories, report.provisional_severities, out_dir / "shares_provisional.png",
            style=style, title="PROVISIONAL (current votes, not locked): failure categories"))
    elif o.provisional:
        section.text += " Provisional: no item without a final decision has votes that decide it."
    return section


def _distance_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    """Category shares per WordNet distance, per model (the paper reports ViT-3B's, §4.1): first the
    share of fine-grained errors in the paper's sense (in-vocabulary or OOV) with the paper's figures
    beside it, then each category, fine-grained in-vocabulary only among them, named so."""
    paper = ", ".join(f"{pct(v)} at distance {d}" for d, v in PAPER_FINE_GRAINED_SHARE.items())
    section = Section("Categories by WordNet distance", short="Distance", text=(
        "Per model, the share of each category among its reviewed mistakes at each hierarchy distance between the "
        "prediction and the image's original label, as the paper measures it (the levels up to the nearest common "
        "ancestor: 1 = the same parent). The paper (§4.1, ViT-3B) counts as fine-grained errors 'either "
        "in-vocabulary or OOV' ('78.3% of errors were assessed to be fine-grained in nature (either in-vocabulary "
        "or OOV)') and reports fine-grained " + paper + "; they stand beside '" + FINE_GRAINED_PAPER_TITLE +
        "' (fine-grained + fine-grained with out-of-vocabulary object). '" + FINE_GRAINED_ONLY_TITLE + "' is the "
        "fine-grained category alone. The variant to the nearest correct label other than the prediction follows "
        "each table."))
    titles = {**CATEGORY_TITLES, Category.FINE_GRAINED.value: FINE_GRAINED_ONLY_TITLE}
    for table, label in ((report.by_distance, "to the original label"),
                         (report.by_distance_nearest, "to the nearest correct label")):
        for model, group in table.groupby(level="model"):
            group = group.droplevel("model")
            cells = pd.DataFrame({"distance": group.index.astype(str)})
            cells[FINE_GRAINED_PAPER_TITLE] = _distance_shares(group, FINE_GRAINED_INCL_OOV)
            if label == "to the original label":
                cells["paper: fine-grained incl. OOV (ViT-3B)"] = [pct(PAPER_FINE_GRAINED_SHARE.get(int(d)))
                                                                   if int(d) in PAPER_FINE_GRAINED_SHARE else ""
                                                                   for d in group.index]
                section.images += plot_names(plots.plot_category_by_distance(
                    group, out_dir / f"distance_{safe_name(str(model))}.png", title=f"{model}: categories by distance",
                    paper=PAPER_FINE_GRAINED_SHARE, style=style))
            for column, title in titles.items():
                cells[title] = _distance_shares(group, column)
            cells["mistakes"] = group["mistakes"].astype(int).astype(str).to_numpy()
            section.tables.append((f"{model}, distance {label}", cells))
    if not section.tables:
        section.empty = _no_distance_reason(report.reviewed)
    return section


def _no_distance_reason(reviewed: pd.DataFrame) -> str:
    """Why the distance tables are empty, in the panel's terms (`reviewed`: the mistakes judged wrong)."""
    if not len(reviewed):
        return ("Nothing to plot yet: no mistake is decided wrong. The failure categories of the mistakes decided "
                "wrong are counted here by their WordNet distance.")
    rated = int(reviewed["category"].notna().sum())
    if not rated:
        return (f"Nothing to plot yet: none of the {len(reviewed)} mistakes decided wrong has a failure category; "
                "the categories are counted here by WordNet distance.")
    return (f"Nothing to plot: the {rated} mistakes decided wrong with a category have no WordNet distance (their "
            "prediction or label is outside the hierarchy).")


def _distance_shares(group: pd.DataFrame, column: str) -> list[str]:
    """A column's shares of `mistakes` at each distance, with the count (exact: share x mistakes)."""
    return ["–" if pd.isna(v) else share(round(v * n), n) for v, n in zip(group[column], group["mistakes"])]


def _comparison_section(report: AnalysisReport) -> Section:
    """Model against model (§3.1, §4.3): the overlap of mistakes, novel predictions judged correct."""
    o = report.options
    section = Section("Model against model", short="Models", text=(
        "Mistakes of each pair of models over the images both predicted (only A, only B, both with the same or a "
        "different prediction), and what the panel decided of each model's novel predictions (not a wrong label "
        "before): judged correct, judged unclear, and the paper's 'deemed correct (or the ground truth deemed "
        "incorrect)': correct, unclear or the image flagged problematic, each over those decided, with Pearson's "
        "chi-square test of the difference in the last" + (" (Yates-corrected)." if o.yates else
                                                           " (no continuity correction, as the paper's tests).")))
    if len(report.overlap):
        section.tables.append(("Overlap of mistakes", pd.DataFrame({
            "model A": report.overlap["model_a"], "model B": report.overlap["model_b"],
            "images": report.overlap["images"].astype(str),
            "mistakes A / B": [f"{a} / {b}" for a, b in zip(report.overlap["mistakes_a"], report.overlap["mistakes_b"])],
            "only A": report.overlap["only_a"].astype(str), "only B": report.overlap["only_b"].astype(str),
            "both, same prediction": report.overlap["both_same"].astype(str),
            "both, different": report.overlap["both_different"].astype(str)})))
    if len(report.novel):
        n = report.novel
        # Each column counts what it says: "judged correct" is the correct verdicts alone.
        section.tables.append(("Novel predictions as the panel decided them", pd.DataFrame({
            "model": n["model"], "novel": n["novel"].astype(str), "decided": n["decided"].astype(str),
            "judged correct": [share(c, d) for c, d in zip(n["correct"], n["decided"])],
            "judged unclear": [share(u, d) for u, d in zip(n["unclear"], n["decided"])],
            "problematic": n["problematic"].astype(str),
            "correct, unclear or problematic": [share(j, d) for j, d in zip(n["judged_correct"], n["decided"])]})))
    if len(report.novel_tests):
        section.tables.append(("Chi-square tests of the shares", _chi_table(report.novel_tests)))
        section.warnings += _small_sample_warning(report.novel_tests)
    if not section.tables:
        section.text += " No two models have a complete run over the whole set yet."
    return section


def _topk_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    topk = report.topk
    names = {"real": "ReaL (Anzaku et al.)", "multilabel": "multi-label set (variant)"}
    table = pd.DataFrame({"run": topk["run_id"].astype(str), "model": topk["model"],
                          "valid labels": topk["label_set"].map(names),
                          "labels (k)": ["more (apart)" if k == 0 else str(k) for k in topk["labels"]],
                          "images": topk["images"].astype(str),
                          "|Y∩Ŷ|/|Y∪Ŷ| (mean)": [pct(v) for v in topk["mean_jaccard"]],
                          "labels found, m/k (mean)": [pct(v) for v in topk["mean_hit_rate"]],
                          "all in top-k": ["–" if pd.isna(v) else share(round(v * n), n)
                                           for v, n in zip(topk["all_in_topk"], topk["images"])],
                          ASMA_JACCARD: [pct(v) for v in topk["asma"]],
                          ASMA_SHARE_FOUND: [pct(v) for v in topk["asma_share_found"]],
                          "top-1 in valid labels, 1-5 labels": [pct(v, 2) for v in topk["real_accuracy_1_to_5"]]})
    return Section("Variable top-k by label count (ASMA)", short="Top-k", text=(
        "Anzaku et al.: an image with k valid labels Y (its ReaL labels) is predicted the set Ŷ of its k most "
        "probable classes; m = |Y∩Ŷ| labels are found. Images are grouped by k and compared over 1-5 labels "
        "(more reported apart); ASMA is the unweighted mean of the subgroups' mean scores. The papers print a "
        "Hamming-style formula over all 1000 classes, which is at least 99% for any model and cannot give "
        "their tables (45-74%), and cite the example-based accuracy of multi-label learning (Zhang & Zhou), "
        f"|Y∩Ŷ|/|Y∪Ŷ| = m/(2k-m): '{ASMA_JACCARD}' follows the citation. '{ASMA_SHARE_FOUND}' is another "
        "reading, given beside it; the two agree on single-label images. Neither could be checked against "
        "their tables (no validation images here, no code of theirs). 'top-1 in valid labels, 1-5 labels' is "
        "on the ReaL rows the ReaL accuracy over the same images, as their ReaL column ('calculated for "
        "samples with one to five labels'); the project's ReaL accuracy counts every image with a ReaL label. "
        "The multi-label-set rows (valid labels: the correct ones; the images MLA counts) are this tool's "
        "variant."), tables=[("", table)] if len(topk) else [],
        images=plot_names(plots.plot_topk(topk, out_dir / "topk.png", style=style)))


def _calibration_section(report: AnalysisReport, out_dir: Path, style: PlotStyle, *, names: dict) -> Section:
    o = report.options
    section = Section("Calibration and class balance", short="Calibration", text=(
        f"QUBA: ECE with {o.ece_bins} equal-width bins of the top-1 probability against top-1 correctness on the "
        f"original label; ACE with {o.ece_bins} equal-mass bins per class over all classes; CE their geometric "
        "mean (lower is better). Class balance (Eqs. 10-12 as printed; higher is better): 1 − the root mean square "
        "over classes of each class's accuracy minus the accuracy over all images (F_Acc), likewise of each "
        "class's mean true-class confidence minus the mean over all images (F_Conf), and their geometric mean; "
        "on a set with unequal numbers of images per class this is not the spread around the mean of the class "
        "values. The authors' code computes the confidence term as the mean within-class spread, shown apart. "
        "Multi-label ECE: correct = accepted by the multi-labels after the review (this tool's variant)."))
    rows = []
    for run_id, result in report.calibration.items():
        balance = report.class_balance.get(run_id)
        ml = report.calibration_multilabel.get(run_id)
        rows.append({"run": str(run_id), "model": names.get(run_id, ""), "images": str(result.images),
                     "ECE": pct(result.ece, 2), "ACE": pct(result.ace, 3), "CE": pct(result.ce, 2),
                     "class balance": f"{balance.class_balance:.3f}" if balance else "–",
                     "(accuracy, confidence)": (f"{balance.accuracy_balance:.3f}, {balance.confidence_balance:.3f}"
                                                if balance else "–"),
                     "authors' code": f"{balance.code_class_balance:.3f}" if balance else "–",
                     "multi-label ECE": pct(ml.ece, 2) if ml else "–"})
        section.images += plot_names(plots.plot_reliability(result, out_dir / f"reliability_run{run_id}.png",
                                                       title=f"{names.get(run_id, '')} (run {run_id})",
                                                       style=style))
    if rows:
        section.tables.append(("", pd.DataFrame(rows)))
    return section
