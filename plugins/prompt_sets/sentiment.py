"""Movie-review sentiment: cloze and prefix templates with two verbalizers, and 40 labelled reviews."""

from __future__ import annotations

from pathlib import Path

from lm_workbench.engine.plugin_api import API_VERSION, NamedTemplate, NamedVerbalizer, PromptSet


class SentimentPrompts(PromptSet):
    name = "sentiment"
    title = "Sentiment (movie reviews)"
    description = "Is a review positive or negative? The classic cloze example of 'pre-train, prompt, predict'."
    api_version = API_VERSION
    templates = (
        NamedTemplate("it was [z]", "[x] Overall, it was a [z] movie.", "cloze"),
        NamedTemplate("all in all", "[x] All in all, it was [z].", "cloze"),
        NamedTemplate("review said", "Review: [x] Sentiment: [z]", "cloze"),
        NamedTemplate("this movie is", "[x] Overall, this movie is [z]", "prefix"),
        NamedTemplate("question", "Review: [x]\nQuestion: Is this review positive or negative?\nAnswer: [z]",
                      "prefix"),
    )
    verbalizers = (
        NamedVerbalizer("great / terrible", "pos=great,good;neg=terrible,bad"),
        NamedVerbalizer("positive / negative", "pos=positive;neg=negative"),
    )

    def example_data(self) -> Path:
        return Path(__file__).resolve().parent / "data" / "sentiment.tsv"
