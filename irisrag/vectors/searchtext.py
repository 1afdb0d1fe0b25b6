"""What the full-text index reads for a chunk, and the words a full-text search adds (README: the search text).

A chunk's search text is its text, with

- its document's title in front when the chunk does not contain it (FULLTEXT_TITLES): a chunk
  deep in an abstract or a manual does not name what the document is about, its title does
  (SciFact: full text 0.656 -> 0.674 nDCG@10, hybrid 0.671 -> 0.684 in the replay);
- for a German full-text index, the parts of its compound nouns after it (FULLTEXT_COMPOUNDS,
  ``rag/compounds.py``; xquad/de hybrid 0.956 -> 0.961), and a question's full-text search
  adds the parts of its own compounds;
- the names of the months its dates name in digits ("Juli July" for ``2027-07-03``; ``rag/months.py``).

The chunk's text as shown, quoted and cited is unchanged: the search text is a column of its
own (``vectortables.SEARCH_COLUMN``). A table made before that column existed keeps indexing
the text alone until ``flask rag init-db`` gives it the column (``vectorindex.add_search_text``);
chunks get their titles and parts when they are written again (``flask rag rebuild``).
Reads return it with each hit (``Hit.search_text``): the gate and the found sources match the
question's words in it (``Hit.lexical_text``), so a question answered only by the title is not
called off-topic; the ranking (the term bridge's unknown words, the fusion's full-text weight)
reads the shown text, as it was measured.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from irisrag.rag.compounds import Compounds
from irisrag.rag.months import month_words


@dataclass(frozen=True)
class SearchText:
    """How a chunk's search text is made (values: the retrieval profile, ``from_config``)."""

    titles: bool
    compounds: str            # a German word list (BRIDGE_DICTIONARY) to split compounds with; "" for none
    cache: str = field(default="", compare=False)   # the folder the parsed list is kept in

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SearchText:
        """FULLTEXT_TITLES, and FULLTEXT_COMPOUNDS with BRIDGE_DICTIONARY's list where FTS_LANGUAGE is German."""
        from irisrag import config as config_module
        from irisrag.rag.dictionary import cache_folder

        values = config_module.defaults(config)
        german = str(values["FTS_LANGUAGE"]).strip().lower() == "german"
        split = german and config_module.parse_bool(values["FULLTEXT_COMPOUNDS"])
        return cls(titles=config_module.parse_bool(values["FULLTEXT_TITLES"]),
                   compounds=str(values["BRIDGE_DICTIONARY"]).strip() if split else "",
                   cache=cache_folder(values))

    @classmethod
    def plain(cls, **changes: Any) -> SearchText:
        """The default profile's search text without compound splitting unless ``changes`` say (tests)."""
        return replace(cls.from_config({}), **{"compounds": "", "cache": "", **changes})

    def splitter(self) -> Compounds | None:
        """The compound splitter (None without a word list, or when its file is missing)."""
        return compounds_of(self.compounds, self.cache) if self.compounds else None

    def chunk(self, title: str, text: str) -> str:
        """The search text of a chunk of a document with this title."""
        title = " ".join(title.split())
        head = f"{title}\n" if self.titles and title and title.casefold() not in text.casefold() else ""
        body = f"{head}{text}"
        splitter = self.splitter()
        parts = [*(splitter.parts(body) if splitter else []), *filter(None, [month_words(text)])]
        return f"{body}\n{' '.join(parts)}" if parts else body

    def query_words(self, words: Sequence[str]) -> list[str]:
        """A full-text search's words with the parts of its compounds added."""
        splitter = self.splitter()
        return [*words, *(part for word in words for part in splitter.split(word))] if splitter else list(words)

    def as_dict(self) -> dict[str, Any]:
        """For the eval's report: what the index read."""
        return {"titles": self.titles, "compounds": self.compounds, "compounds_found": self.splitter() is not None}


@lru_cache(maxsize=8)
def compounds_of(path: str, cache: str) -> Compounds | None:
    """The splitter of the word list at ``path``, built once per process (None when the file is missing)."""
    from irisrag.rag import dictionary

    words = dictionary.load(Path(path), Path(cache) if cache else None)
    return Compounds(words) if words is not None else None
