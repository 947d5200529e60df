"""Head and tail truncation: budgets, whole lines, and never half a UTF-8 character."""

from __future__ import annotations

from prime_jupyter.tools._truncate import count_lines, split_lines, truncate_head, truncate_tail, utf8_len


def numbered(n: int) -> str:
    return "".join(f"{i}\n" for i in range(1, n + 1))


def test_text_within_budget_is_returned_unchanged() -> None:
    result = truncate_head("a\nb\n", 10, 100)
    assert (result.content, result.truncated, result.truncated_by, result.total_lines) == ("a\nb\n", False, None, 2)


def test_trailing_newline_ends_the_last_line() -> None:
    assert (split_lines("a\nb\n"), count_lines("a\nb\n"), count_lines("a\nb"), count_lines("")) == (["a", "b"], 2, 2, 0)


def test_head_keeps_first_lines_when_line_budget_binds() -> None:
    result = truncate_head(numbered(10), 3, 1000)
    assert (result.content, result.truncated_by, result.output_lines, result.total_lines) == ("1\n2\n3", "lines", 3, 10)


def test_head_keeps_whole_lines_when_byte_budget_binds() -> None:
    result = truncate_head("aaaa\nbbbb\ncccc\n", 100, 10)
    assert (result.content, result.truncated_by, result.output_bytes) == ("aaaa\nbbbb", "bytes", 9)


def test_head_reports_a_first_line_over_the_byte_budget() -> None:
    result = truncate_head("x" * 20 + "\nshort\n", 100, 10)
    assert (result.content, result.first_line_exceeds_limit, result.output_lines) == ("", True, 0)


def test_tail_keeps_last_lines_when_line_budget_binds() -> None:
    result = truncate_tail(numbered(10), 3, 1000)
    assert (result.content, result.truncated_by, result.total_lines) == ("8\n9\n10", "lines", 10)


def test_tail_keeps_whole_lines_when_byte_budget_binds() -> None:
    result = truncate_tail("aaaa\nbbbb\ncccc\n", 100, 10)
    assert (result.content, result.truncated_by) == ("bbbb\ncccc", "bytes")


def test_tail_keeps_end_of_an_over_long_last_line_on_a_character_boundary() -> None:
    result = truncate_tail("start\n" + "é" * 100, 100, 51)  # é is two bytes: 51 bytes would cut one in half
    assert (result.last_line_partial, result.content, utf8_len(result.content)) == (True, "é" * 25, 50)


def test_head_byte_budget_counts_utf8_bytes_not_characters() -> None:
    result = truncate_head("é" * 4 + "\n" + "é" * 4 + "\n", 100, 12)
    assert (result.content, result.output_bytes, result.total_bytes) == ("é" * 4, 8, 18)


def test_details_are_camel_case_json() -> None:
    details = truncate_tail(numbered(5), 2, 100).to_json()
    assert (details["truncatedBy"], details["totalLines"], details["outputLines"]) == ("lines", 5, 2)
