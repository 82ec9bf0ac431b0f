// The page /learn: one lesson per rule (a few lines, a diagram, exercises played on the
// board), then a quiz of mixed positions. Deep links: /learn#jump, /learn#quiz.
//
// The server is the authority on the rules (docs/web-api.md, "Learning the rules"): it
// sends each exercise's legal moves and the moves that solve it, and checks every try.
// This page compares the move the server accepted with those solutions and words a
// wrong try: the lesson's reason for a typical one, else the server's refusal (why, and
// the legal moves), else, for a legal move that is not the goal, that it is not; the
// exercise's hint follows. Progress is kept in this browser (localStorage).

import { ApiError, api } from "./api.js";
import { BoardView } from "./board.js";
import { $, make, showText } from "./dom.js";
import { SQUARES, algebraic, colorName, parseFen } from "./geometry.js";
import {
  chosenLanguage, languagePicker, listOr, onLanguageChange, setLanguage, t,
} from "./i18n.js";
import { MESSAGES, describeError, refusedMove } from "./messages.js";
import { loadSettings } from "./settings.js";
import { TryInput, pathText } from "./tryinput.js";

const PROGRESS_KEY = "doublecorner.learn";
const QUIZ = "quiz";

await setLanguage(chosenLanguage());
document.title = t("learn.pageTitle");
const course = await api.learn();

const progress = loadProgress();
const input = new TryInput();
const state = {
  lesson: null, // the lesson shown; null: the quiz
  exercises: [], // played one after the other: the lesson's, or the questions the quiz drew
  index: 0,
  // "playing", "wrong" (a lesson's exercise after a wrong try: try again), "solved",
  // "missed" (a quiz question answered wrong: one try each) or "finished" (the quiz's end).
  outcome: "playing",
  answer: null, // the server's answer to the move that solved the exercise
  said: null, // () => the words under the board, in the language of the moment
  aside: null, // () => the line after them: the hint, the answer, or the lesson's comment
  score: 0,
  busy: false,
};

const board = new BoardView($("learn-board"), {
  activate: (square) => activate(square),
  drop: (from, to) => drop(from, to),
  canDrag: (square) => canPlay() && isOwn(square),
  cancel: () => {
    input.reset();
    render();
  },
});
const diagram = new BoardView($("diagram"), {
  activate: () => {}, drop: () => {}, canDrag: () => false, cancel: () => {},
});

// --- progress, kept in this browser ------------------------------------------------

function loadProgress() {
  try {
    const kept = JSON.parse(localStorage.getItem(PROGRESS_KEY) ?? "{}");
    return {
      solved: new Set(Array.isArray(kept.solved) ? kept.solved : []),
      quizBest: Number.isInteger(kept.quizBest) ? kept.quizBest : null,
    };
  } catch {
    return { solved: new Set(), quizBest: null };
  }
}

function saveProgress() {
  localStorage.setItem(PROGRESS_KEY, JSON.stringify({ solved: [...progress.solved], quizBest: progress.quizBest }));
}

const exerciseKey = (lesson, exercise) => `${lesson.id}/${exercise.id}`;
const isSolved = (lesson, exercise) => progress.solved.has(exerciseKey(lesson, exercise));
const isDone = (lesson) => lesson.exercises.every((exercise) => isSolved(lesson, exercise));

$("reset-progress").addEventListener("click", () => {
  if (!confirm(t("learn.confirmReset"))) return;
  progress.solved.clear();
  progress.quizBest = null;
  saveProgress();
  render();
});

// --- which lesson: the address's #id -------------------------------------------------

function route() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (id === QUIZ) {
    startQuiz();
    return;
  }
  const lesson = course.lessons.find((one) => one.id === id)
    ?? course.lessons.find((one) => !isDone(one)) ?? course.lessons[0];
  if (lesson.id !== id) history.replaceState(null, "", `#${lesson.id}`);
  state.lesson = lesson;
  state.exercises = lesson.exercises;
  const unsolved = lesson.exercises.findIndex((exercise) => !isSolved(lesson, exercise));
  startExercise(Math.max(unsolved, 0));
}

function startQuiz() {
  if (location.hash !== `#${QUIZ}`) history.replaceState(null, "", `#${QUIZ}`);
  const pool = [...course.quiz];
  for (let index = pool.length - 1; index > 0; index -= 1) { // Fisher-Yates
    const other = Math.floor(Math.random() * (index + 1));
    [pool[index], pool[other]] = [pool[other], pool[index]];
  }
  state.lesson = null;
  state.exercises = pool.slice(0, course.quiz_size);
  state.score = 0;
  startExercise(0);
}

function startExercise(index) {
  state.index = index;
  state.outcome = "playing";
  state.answer = null;
  state.said = null;
  state.aside = null;
  input.setLegalMoves(current().legal_moves);
  render();
}

const current = () => state.exercises[state.index];
const params = (exercise) => ({ side: colorName(exercise.turn) });
const isLast = () => state.index === state.exercises.length - 1;

// --- playing an exercise --------------------------------------------------------------

function canPlay() {
  return !state.busy && (state.outcome === "playing" || state.outcome === "wrong");
}

function shownPosition() {
  return parseFen(state.answer?.fen ?? current().fen);
}

function isOwn(square) {
  const position = parseFen(current().fen);
  return position.pieces.get(square)?.color === position.turn;
}

function activate(square) {
  if (!canPlay()) return;
  const position = parseFen(current().fen);
  const piece = position.pieces.get(square);
  if (input.selected === null && piece && piece.color !== position.turn) {
    state.said = () => MESSAGES.notTheSideToMove(position.turn, piece.color);
    render();
    return;
  }
  follow(input.click(square, isOwn(square)));
}

function drop(from, to) {
  if (canPlay() && isOwn(from)) follow(input.drop(from, to));
}

function follow(result) {
  if (result.kind === "try") attempt(pathText(result.path));
  else render();
}

/** The squares of move text (numbers or a1-h8 names), NaN for what is no square. */
function squaresOf(text) {
  return text.trim().split(/\s*[-xX:]\s*/).map((token) => (/^\d+$/.test(token)
    ? Number(token) : SQUARES.find((square) => algebraic(square) === token.toLowerCase()) ?? NaN));
}

const isSamePath = (first, second) => first.length === second.length
  && first.every((square, index) => square === second[index]);

async function attempt(text) {
  const exercise = current();
  const listed = exercise.wrong.find((wrong) => isSamePath(squaresOf(wrong.move), squaresOf(text)));
  setBusy(true);
  let answer = null;
  let refusal = null;
  try {
    answer = await api.checkMove(exercise.start_fen, exercise.moves, text);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    refusal = error;
  } finally {
    setBusy(false);
  }
  input.reset();
  if (answer && exercise.solutions.includes(answer.move)) {
    solved(exercise, answer);
  } else if (listed) {
    wrong(exercise, () => t(listed.reason, listed.params));
  } else if (refusal) {
    wrong(exercise, () => (refusal.code === "illegal_move" || refusal.code === "ambiguous_move"
      ? refusedMove(text, refusal, exercise.turn) : describeError(refusal)));
  } else {
    wrong(exercise, () => t("learn.notTheGoal", { move: answer.move }));
  }
}

function setBusy(busy) {
  state.busy = busy;
  document.body.dataset.busy = String(busy);
}

function solved(exercise, answer) {
  state.answer = answer;
  state.outcome = "solved";
  if (state.lesson) {
    progress.solved.add(exerciseKey(state.lesson, exercise));
    saveProgress();
    state.said = () => t("learn.solved", { move: answer.move });
  } else {
    state.score += 1;
    state.said = () => t("learn.right", { move: answer.move });
  }
  state.aside = exercise.done ? () => t(exercise.done, params(exercise)) : null;
  render();
}

function wrong(exercise, why) {
  state.said = why;
  if (state.lesson) {
    state.outcome = "wrong";
    state.aside = () => t("learn.hint", { hint: t(exercise.hint, params(exercise)) });
  } else {
    state.outcome = "missed"; // one try per question
    state.aside = () => t("learn.answer", { moves: listOr(exercise.solutions) });
  }
  render();
}

$("try-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("try-input").value.trim();
  if (!text || !canPlay()) return;
  $("try-input").value = "";
  attempt(text);
});

$("try-again").addEventListener("click", () => {
  state.outcome = "playing";
  state.said = null;
  state.aside = null;
  input.reset();
  render();
  board.focus();
});

$("next").addEventListener("click", () => {
  if (state.outcome === "finished") {
    startQuiz();
  } else if (!isLast()) {
    startExercise(state.index + 1);
  } else if (state.lesson) {
    const following = course.lessons[course.lessons.indexOf(state.lesson) + 1];
    location.hash = following ? following.id : QUIZ; // the hashchange opens it
  } else {
    finishQuiz();
  }
  $("exercise-heading").focus();
});

function finishQuiz() {
  const total = state.exercises.length;
  progress.quizBest = Math.max(progress.quizBest ?? 0, state.score);
  saveProgress();
  state.outcome = "finished";
  state.said = () => t("learn.quizScore", { score: state.score, total });
  state.aside = () => t("learn.quizBest", { score: progress.quizBest, total });
  render();
}

/** The words of the button that goes on, or null while there is nothing to go on to. */
function nextLabel() {
  if (state.outcome === "finished") return t("learn.quizAgain");
  if (state.outcome !== "solved" && state.outcome !== "missed") return null;
  if (!state.lesson) return t(isLast() ? "learn.quizEnd" : "learn.nextQuestion");
  if (!isLast()) return t("learn.nextExercise");
  return t(state.lesson === course.lessons.at(-1) ? "learn.toQuiz" : "learn.nextLesson");
}

// --- drawing --------------------------------------------------------------------------

/** The board's look and kings, as chosen on the game page (settings.js). */
function boardLook() {
  const { style, kings } = loadSettings();
  return { style, kings };
}

function render() {
  renderNav();
  renderLesson();
  renderExercise();
}

function renderNav() {
  const item = (id, title, done) => {
    const link = make("a", { href: `#${id}`, textContent: title });
    const isShown = state.lesson ? state.lesson.id === id : id === QUIZ;
    if (isShown) link.setAttribute("aria-current", "page");
    const entry = make("li");
    entry.dataset.testid = "lesson-item";
    entry.dataset.lesson = id;
    entry.dataset.done = String(done);
    entry.append(link);
    // The tick is drawn by learn.css; this says it.
    if (done) entry.append(make("span", { className: "visually-hidden", textContent: t("learn.doneMark") }));
    return entry;
  };
  $("lesson-list").replaceChildren(
    ...course.lessons.map((lesson) => item(lesson.id, t(lesson.title), isDone(lesson))),
    item(QUIZ, t("learn.quiz"), progress.quizBest !== null),
  );
}

function renderLesson() {
  const lesson = state.lesson;
  $("lesson-title").textContent = lesson ? t(lesson.title) : t("learn.quiz");
  const lines = lesson ? lesson.text.map((key) => t(key))
    : [t("learn.quizIntro", { count: state.exercises.length })];
  $("lesson-text").replaceChildren(...lines.map((line) => make("p", { textContent: line })));
  $("diagram").hidden = !lesson;
  if (!lesson) return;
  const { fen, highlights, arrow } = lesson.diagram;
  diagram.render({
    position: parseFen(fen), flipped: false, coordinates: "numbers", ...boardLook(),
    lastMove: highlights, selected: arrow[0] ?? null, visited: arrow.slice(1), label: t("board.label"),
  });
}

function renderExercise() {
  const exercise = current();
  const playing = canPlay();
  const position = shownPosition();
  const section = $("exercise");
  section.dataset.exercise = `${state.lesson?.id ?? QUIZ}/${exercise.id}`;
  section.dataset.outcome = state.outcome;
  $("exercise-heading").tabIndex = -1; // the Next button sends the focus here
  $("exercise-heading").textContent = t(state.lesson ? "learn.exercise" : "learn.question",
    { number: state.index + 1, total: state.exercises.length });
  const finished = state.outcome === "finished";
  $("task").textContent = finished ? "" : t(exercise.task, params(exercise));
  $("to-move").textContent = playing ? t("status.toMove", { side: colorName(position.turn) }) : "";
  board.render({
    position,
    flipped: false,
    coordinates: "numbers",
    ...boardLook(),
    lastMove: state.answer ? state.answer.path : exercise.highlights,
    selected: playing ? input.selected : null,
    visited: playing ? input.visited() : [],
    targets: playing ? input.targets() : [],
    movable: playing ? [...new Set(exercise.legal_moves.map((entry) => entry.path[0]))] : [],
    label: t("board.labelToMove", { side: colorName(position.turn) }),
  });
  const feedback = $("feedback");
  showText(feedback, state.said ? state.said() : "");
  feedback.dataset.kind = state.outcome;
  showText($("hint"), state.aside ? state.aside() : "");
  $("try-again").hidden = state.outcome !== "wrong";
  const label = nextLabel();
  $("next").hidden = label === null;
  $("next").textContent = label ?? "";
  $("try-input").disabled = !playing;
  $("try-form").querySelector("button").disabled = !playing;
}

// --- language --------------------------------------------------------------------------

languagePicker($("language"));

onLanguageChange((lang) => {
  document.title = t("learn.pageTitle");
  render();
});

window.addEventListener("hashchange", route);
route();
document.body.dataset.ready = "true";
