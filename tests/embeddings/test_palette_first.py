"""The map's colours go first to what a view or lecture step names (issue 36, item 13): with the presentation's
eight colours and twenty words, the chosen words keep colours of their own instead of falling into "other"."""

from __future__ import annotations

from lm_workbench.ui.embeddings.palette import colour_groups


def test_named_labels_get_colours_before_the_most_frequent_ones():
    words = [f"w{i:02d}" for i in range(20)]
    labels = [w for i, w in enumerate(words) for _ in range(20 - i)]  # w00 the most frequent ... w19 the least
    labels += ["bank", "mouse"]  # the words a caption talks about: rare in the map
    plain = colour_groups(labels, max_groups=8)
    assert "bank" not in plain.names and "mouse" not in plain.names
    assert plain.names == words[:7] and plain.other_count == 15

    named = colour_groups(labels, max_groups=8, first=["mouse", "bank", "absent"])
    assert named.names == ["mouse", "bank"] + words[:5]  # named first (in the given order), then by frequency
    assert named.other_count == 15
    codes = {lab: int(code) for lab, code in zip(labels, named.codes)}
    assert named.name_of(codes["bank"]) == "bank" and named.name_of(codes["w19"]).startswith("other")
    assert len(set(named.colours)) == 7
