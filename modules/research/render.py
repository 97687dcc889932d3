"""A research report for people: the terminal and the Prefect markdown artifact."""

from __future__ import annotations

from ..links import markdown_link, markdown_text


def report_markdown(report: dict) -> str:
    """Markdown of one ``reports`` row: answer, research journey, key sources."""
    sources = (
        "\n".join(f"{i}. {markdown_link(u)}" for i, u in enumerate(report.get("cited_urls") or [], 1))
        or "(none)"
    )
    constraints = "".join(f"\n- {markdown_text(c)}" for c in report.get("constraints") or [])
    head = f"# {markdown_text(report['question'])}\n\n"
    if report.get("status") == "error":
        return head + f"**The research failed:** {markdown_text(report.get('error'))}\n"
    return (
        head
        + f"**Status:** {report['status']} (stopped: {report['stop_reason']}), confidence {report['confidence']:.2f}\n"
        + (f"\n**Constraints from feedback:**{constraints}\n" if constraints else "")
        + f"\n## Answer\n\n{markdown_text(report['answer'])}\n\n## Research journey\n\n"
        + f"{markdown_text(report['journey'])}\n\n## Key sources\n\n{sources}\n"
    )


def report_text(report: dict) -> str:
    """Plain text of one ``reports`` row, for a terminal."""
    lines = [report["question"], "=" * min(len(report["question"]), 100)]
    if report.get("status") == "error":
        return "\n".join(lines + [f"The research failed: {report.get('error')}"])
    lines += [
        f"status: {report['status']} (stopped: {report['stop_reason']}), confidence {report['confidence']:.2f}",
        *(
            ["", "Reviewer's input:", *(f"- {c}" for c in report["constraints"])]
            if report.get("constraints")
            else []
        ),
        "",
        "Answer:",
        report["answer"],
        "",
        "Research journey:",
        report["journey"],
        "",
        "Key sources:",
    ]
    lines += [f"  [{i}] {u}" for i, u in enumerate(report.get("cited_urls") or [], 1)] or ["  (none)"]
    return "\n".join(lines)
