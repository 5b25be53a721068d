/**
 * How a person names an input a run waits for (`prosec answer RUN name=value`, `--resume ID --input
 * name=value`), when several waiting inputs may share a name: the caller's `confirm` and the `confirm`
 * of a program it calls, or two parallel calls of one program.
 *
 * A question answers to its bare name (`confirm`), to its program's name and its name (`gate.confirm`:
 * the name of the `.prose` file that asks it) and to its site. A name is taken only when exactly
 * one waiting question answers to it; otherwise the person is shown each question's own name.
 */
import type { Question } from "../types.js";

/** The part of a question that names it (a DBOS waiting event has the same fields). */
export type NamedQuestion = Pick<Question, "name" | "key" | "program">;

/** `gate.confirm`: the question's name under its program's, when the question says its program. */
export function qualifiedName(question: NamedQuestion): string | undefined {
  return question.program === undefined ? undefined : `${question.program}.${question.name}`;
}

/** Whether `given` names this question: its name, its qualified name or its site. */
function answersTo(question: NamedQuestion, given: string): boolean {
  return given === question.name || given === qualifiedName(question) || given === question.key;
}

/** The waiting questions `given` names (none, one, or several: then it is ambiguous). */
export function questionsNamed<Q extends NamedQuestion>(questions: readonly Q[], given: string): Q[] {
  return questions.filter((question) => answersTo(question, given));
}

/**
 * The shortest name that names only this question among those waiting: its bare name when no other
 * shares it, else its qualified name when that is unique, else its site.
 */
export function answerName(question: NamedQuestion, waiting: readonly NamedQuestion[]): string {
  const qualified = qualifiedName(question);
  for (const candidate of [question.name, qualified]) {
    if (candidate !== undefined && questionsNamed(waiting, candidate).length === 1) return candidate;
  }
  return question.key;
}

/** Each answer given, matched to the one question it names (`problem`: what to tell the person). */
export type MatchedAnswers<Q, V> =
  | { readonly answers: ReadonlyArray<readonly [Q, V]>; readonly unmatched: readonly string[] }
  | { readonly problem: string };

/**
 * Matches answers given by name to the waiting questions. A name that matches none is left in
 * `unmatched` (an input answered ahead, or a mistake: the caller says which); a name that matches
 * several is a problem that lists each one's own name and where it is asked.
 */
export function matchAnswers<Q extends NamedQuestion, V>(
  questions: readonly Q[],
  given: { readonly [name: string]: V },
  where: (question: Q) => string,
): MatchedAnswers<Q, V> {
  const answers: Array<readonly [Q, V]> = [];
  const unmatched: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    const named = questionsNamed(questions, name);
    if (named.length === 0) unmatched.push(name);
    else if (named.length === 1) answers.push([named[0]!, value]);
    else
      return {
        problem: `"${name}" names ${named.length} inputs the run waits for; name the one you answer: ${named
          .map((question) => `${answerName(question, questions)} (${where(question)})`)
          .join(", ")}`,
      };
  }
  for (const [question] of answers) {
    if (answers.filter(([other]) => other === question).length > 1)
      return { problem: `the input ${answerName(question, questions)} is answered twice` };
  }
  return { answers, unmatched };
}

/** Where a question is asked: `imp/gate.prose:3:1`, or `line 3:1` when it does not say its file. */
export function whereAsked(question: {
  readonly source?: string;
  readonly line: number;
  readonly column: number;
}): string {
  const at = `${question.line}:${question.column}`;
  return question.source === undefined ? `line ${at}` : `${question.source}:${at}`;
}

/** `whereAsked` of a recorded question. */
export function whereRecorded(question: Question): string {
  return whereAsked({ ...question.at, ...(question.source === undefined ? {} : { source: question.source }) });
}

/** What the run waits for, each by the name that answers it: `"confirm", "gate.confirm"`. */
export function waitingList(questions: readonly NamedQuestion[]): string {
  return questions.map((question) => `"${answerName(question, questions)}"`).join(", ");
}
