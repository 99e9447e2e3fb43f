import { describe, expect, it } from 'vitest';
import { overdueLabel, planningWindow, ruleLoop, scheduleBodySchema } from './requests.js';

// The seeded rules (trigger -> scheduled action).
const SEEDED = [
  { id: 1, idActionDeclenchante: 18, idActionProgrammee: 14 },
  { id: 2, idActionDeclenchante: 9, idActionProgrammee: 14 },
  { id: 3, idActionDeclenchante: 16, idActionProgrammee: 3 },
  { id: 4, idActionDeclenchante: 16, idActionProgrammee: 3 },
  { id: 5, idActionDeclenchante: 7, idActionProgrammee: 12 },
  { id: 6, idActionDeclenchante: 7, idActionProgrammee: 12 },
  { id: 7, idActionDeclenchante: 19, idActionProgrammee: 17 },
];

describe('ruleLoop', () => {
  it('finds the way back from the scheduled action to the trigger, the shortest one', () => {
    expect(ruleLoop(SEEDED, { actionDeclenchante: 14, actionProgrammee: 14 })).toEqual([14, 14]);
    expect(ruleLoop(SEEDED, { actionDeclenchante: 14, actionProgrammee: 18 })).toEqual([14, 18, 14]);
    expect(ruleLoop([...SEEDED, { id: 8, idActionDeclenchante: 12, idActionProgrammee: 9 }], { actionDeclenchante: 14, actionProgrammee: 7 })).toEqual([14, 7, 12, 9, 14]);
  });

  it('finds none when the chain ends, and ignores the rule being changed', () => {
    expect(ruleLoop(SEEDED, { actionDeclenchante: 18, actionProgrammee: 13 })).toBeNull();
    expect(ruleLoop(SEEDED, { actionDeclenchante: 3, actionProgrammee: 1 })).toBeNull();
    // Rule 1 changed from 18 -> 14 to 14 -> 18: its old self no longer counts.
    expect(ruleLoop(SEEDED, { actionDeclenchante: 14, actionProgrammee: 18 }, 1)).toBeNull();
  });
});

describe('planningWindow', () => {
  it('runs from today to the due day, or to today plus the delay once the due day has passed', () => {
    expect(planningWindow('2026-03-20', '2026-03-10', 14)).toEqual({ min: '2026-03-10', max: '2026-03-20', overdueDays: 0 });
    expect(planningWindow('2026-03-10', '2026-03-10', 14)).toEqual({ min: '2026-03-10', max: '2026-03-10', overdueDays: 0 });
    expect(planningWindow('2026-03-09', '2026-03-10', 14)).toEqual({ min: '2026-03-10', max: '2026-03-24', overdueDays: 1 });
    // Across the end of February and the change to summer time (29 March 2026).
    expect(planningWindow('2026-02-25', '2026-03-27', 7)).toEqual({ min: '2026-03-27', max: '2026-04-03', overdueDays: 30 });
  });

  it('says how late in French', () => {
    expect(overdueLabel(1)).toBe('Échéance dépassée de 1 jour');
    expect(overdueLabel(6)).toBe('Échéance dépassée de 6 jours');
  });
});

describe('scheduleBodySchema', () => {
  it('takes the items of the contract, the shown due date and action being optional', () => {
    const body = {
      values: [
        { demandeIntervention: 4, date: '2026-03-12', dateEcheance: '2026-03-20T09:00:00.000Z', actionProgrammee: 14 },
        { demandeIntervention: 5, date: '2026-03-12', dateEcheance: '2026-03-20', actionProgrammee: 'Réparation effectuée' },
        { demandeIntervention: 6, date: '2026-03-12' },
      ],
    };
    expect(scheduleBodySchema.safeParse(body).success).toBe(true);
    expect(scheduleBodySchema.safeParse({ values: [{ demandeIntervention: 4, date: '2026-03-12', site: 1 }] }).success).toBe(false);
    for (const dateEcheance of ['2026-02-30', '2026-02-30T10:00:00Z', '2026-03-20T24:00:00Z', '0000-01-01T00:00:00Z', '2026-03-20T10:00:00+25:00', 'demain']) {
      expect(scheduleBodySchema.safeParse({ values: [{ demandeIntervention: 4, date: '2026-03-12', dateEcheance }] }).success, dateEcheance).toBe(false);
    }
  });
});
