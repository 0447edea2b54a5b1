"""The lessons wing: guided walks through the lab, and a teacher's own lessons.

The five lessons as data (:mod:`.lessons`), a lesson's parts, step and reveal
(:mod:`.lesson_steps`), the fits that measure a step's answer (:mod:`.lesson_fits`),
each step at many draws of the data (:mod:`.lesson_seeds`), a step's figure
(:mod:`.lesson_figures`), a student's locked answers (:mod:`.lesson_answers`), a
teacher's lesson packed in a link (:mod:`.teacher_lessons`) and the lesson as one
offline HTML file (:mod:`.lesson_file`, with its ``.js``, ``.css`` and ``.html`` beside
it). Modules are imported by name (``from nplk_lab.model.lessons import lessons as L``):
this package hands on nothing.
"""
