"""The atlas wing: where a learned kernel's gain holds, over data sets, σ, C and seeds.

``python -m nplk_lab.model.atlas`` measures it (:mod:`.atlas`, its command and regions).
One module per job: the data sets (:mod:`.atlas_data`), the cache of measured cells
(:mod:`.atlas_cache`), the committed tables (:mod:`.atlas_files`), the report and its
words (:mod:`.atlas_report`, :mod:`.atlas_words`), the smooth rule's columns added to
committed tables (:mod:`.atlas_fill`), SimpleNPKL's table (:mod:`.atlas_npkl`) and what
the "Where it holds" panel reads (:mod:`.atlas_view`). The general sentences checked
against the atlas stay beside the settings that show them (:mod:`nplk_lab.model.claims`).
Modules are imported by name (``from nplk_lab.model.atlas import atlas_view``): this
package hands on nothing, so reading one table does not import the fitting.
"""
