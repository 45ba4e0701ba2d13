import { expect } from 'chai';
import { Duck } from '../../src/db/duckdb.js';
import { defineMacros, readSkills } from '../../src/catalog/publish/stages.js';

describe('skills read in a description', () => {
  let duck: Duck;
  before(async () => {
    duck = await Duck.open();
    await defineMacros(duck);
    await readSkills(duck);
  });
  after(() => duck.close());

  const read = async (text: string | null) =>
    (await duck.one<{ skills: string[] | null }>('SELECT skills_in($text) AS skills', { text }))!.skills;

  it('reads the vocabulary skills a text names, as the vocabulary spells them, once each and sorted', async () => {
    expect(await read('Tools you will use include Python, SQL and Kubernetes. Experience with python is a plus.')).to.deep.equal([
      'Kubernetes',
      'Python',
      'SQL',
    ]);
    expect(await read('- Forklift certification\n- Operate a REACH TRUCK safely')).to.deep.equal(['forklift', 'reach truck']);
  });

  it('takes the longest skill at a place, and a skill only as a word of its own', async () => {
    expect(await read('We run SQL Server and PL/SQL.')).to.deep.equal(['PL/SQL', 'SQL Server']);
    expect(await read('Modern C++ and C# services.')).to.deep.equal(['C#', 'C++']);
    expect(await read('Experience with P&L management.')).to.deep.equal(['P&L management']);
    expect(await read('PostgreSQLish tooling and NoSQLite')).to.deep.equal([]);
  });

  it('reads a skill spelt with capitals only as it is spelt ("Go", "R"), and leaves out the common words', async () => {
    expect(await read('We go to market with R and Go.')).to.deep.equal(['Go', 'R']);
    expect(await read('You go where the r is.')).to.deep.equal([]);
    expect(await read('Strong communication, leadership and safety habits.')).to.deep.equal([]);
    expect(await read(null)).to.equal(null);
  });
});
