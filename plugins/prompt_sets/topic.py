"""News topics: four labels, cloze and prefix templates, and 32 labelled headlines."""

from __future__ import annotations

from pathlib import Path

from lm_workbench.engine.plugin_api import API_VERSION, NamedTemplate, NamedVerbalizer, PromptSet


class TopicPrompts(PromptSet):
    name = "topic"
    title = "Topic (news sentences)"
    description = "Which section of a newspaper does a sentence belong to: sports, business, science or politics?"
    api_version = API_VERSION
    templates = (
        NamedTemplate("section", "[x] This article is about [z].", "cloze"),
        NamedTemplate("news", "[z] news: [x]", "cloze"),
        NamedTemplate("topic is", "[x] The topic of this text is [z]", "prefix"),
    )
    verbalizers = (
        NamedVerbalizer("section names", "sports=sports;business=business;science=science;politics=politics"),
        NamedVerbalizer("related words", "sports=sport,football,game;business=money,market;"
                                         "science=science,research;politics=politics,government"),
    )

    def example_data(self) -> Path:
        return Path(__file__).resolve().parent / "data" / "topic.tsv"
