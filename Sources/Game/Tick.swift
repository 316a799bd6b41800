/// The rules of one tick. Every draw from `state.random` happens in a fixed order,
/// so the same state and commands always give the same events.
extension Adventure {
    func play(_ state: inout AdventureState, commands: [Command], turnOrder: [Actor], events: inout [GameEvent]) {
        for command in commands {
            apply(command, to: &state, events: &events)
            guard state.isRunning else { return }
        }
        for actor in turnOrder {
            let bossBefore = state.bossIndex
            switch actor {
            case .hero(let slot):
                guard !state.heroes[slot].isKnockedDown else { continue }
                heroActs(slot, in: &state, events: &events)
            case .boss:
                bossActs(in: &state, events: &events)
            }
            // A new boss steps in at the next tick; an ended adventure stops here.
            guard state.isRunning, state.bossIndex == bossBefore else { return }
        }
        if state.tick >= setup.lastTick {
            state.status = .timeLimitReached
            events.append(.timeLimitReached(boss: state.boss.boss))
        }
    }

    private func apply(_ command: Command, to state: inout AdventureState, events: inout [GameEvent]) {
        switch command {
        case .endAdventure:
            state.status = .endedByGameMaster
            events.append(.adventureEndedByGameMaster(boss: state.boss.boss))
        case .usePotion(let player, let hero):
            guard let slot = state.heroes.firstIndex(where: { $0.hero == hero }) else {
                events.append(.potionRejected(player: player, hero: hero, reason: .heroNotInParty))
                return
            }
            guard state.potions > 0 else {
                events.append(.potionRejected(player: player, hero: hero, reason: .noPotionsLeft))
                return
            }
            let target = state.heroes[slot]
            guard target.health < target.maxHealth else {
                events.append(.potionRejected(player: player, hero: hero, reason: .heroAtFullHealth))
                return
            }
            let amount = min(target.maxHealth - target.health, target.maxHealth * rules.potionHealPercent / 100)
            state.potions -= 1
            state.heroes[slot].health += amount
            events.append(.potionUsed(player: player, hero: hero, amount: amount))
            if target.isKnockedDown {
                events.append(.heroRevived(hero: hero))
            }
        }
    }

    private func vary(_ value: Int, _ random: inout SeededRandom) -> Int {
        let spread = rules.variancePercent
        return value * (100 + random.int(in: -spread...spread)) / 100
    }

    private func heroActs(_ slot: Int, in state: inout AdventureState, events: inout [GameEvent]) {
        let fighter = fighter(slot)
        let hero = state.heroes[slot].hero
        if fighter.type == .healer, let patient = mostHurtAlly(in: state) {
            let missing = state.heroes[patient].maxHealth - state.heroes[patient].health
            let amount = min(missing, max(1, vary(fighter.healing, &state.random)))
            state.heroes[patient].health += amount
            events.append(.smallHeal(healer: hero, hero: state.heroes[patient].hero, amount: amount))
            return
        }

        let boss = bossDefinition(state.bossIndex)
        let critical = state.random.chance(perMille: fighter.critPerMille)
        var damage = vary(fighter.attack, &state.random)
        if critical { damage = damage * rules.criticalDamagePercent / 100 }
        if fighter.type != .mage { damage -= boss.defense }
        damage = max(1, damage)
        let blocked = min(state.boss.shield, damage)
        state.boss.shield -= blocked
        let amount = min(damage - blocked, state.boss.health)
        state.boss.health -= amount
        events.append(critical
            ? .criticalHit(hero: hero, boss: boss.id, amount: amount, blocked: blocked)
            : .damageDealt(hero: hero, boss: boss.id, amount: amount, blocked: blocked))

        let roll = state.random.int(below: 1000)
        let loot = rules.lootPerMille
        if roll < loot.legendary {
            events.append(.lootFound(hero: hero, rarity: .legendary))
        } else if roll < loot.legendary + loot.rare {
            events.append(.lootFound(hero: hero, rarity: .rare))
        } else if roll < loot.legendary + loot.rare + loot.common {
            events.append(.lootFound(hero: hero, rarity: .common))
        }

        if state.boss.health == 0 {
            bossFalls(to: hero, in: &state, events: &events)
        } else {
            enterPhases(of: boss, in: &state, events: &events)
        }
    }

    /// The standing hero with the lowest share of health, if below the healing threshold.
    private func mostHurtAlly(in state: AdventureState) -> Int? {
        var best: Int?
        for (slot, hero) in state.heroes.enumerated() where !hero.isKnockedDown {
            guard hero.health * 100 < hero.maxHealth * rules.healBelowPercent else { continue }
            if let current = best {
                let other = state.heroes[current]
                // Compare health shares without division: h1/m1 < h2/m2.
                if hero.health * other.maxHealth < other.health * hero.maxHealth { best = slot }
            } else {
                best = slot
            }
        }
        return best
    }

    private func enterPhases(of boss: BossDefinition, in state: inout AdventureState, events: inout [GameEvent]) {
        func below(_ percent: Int) -> Bool { state.boss.health * 100 <= state.boss.maxHealth * percent }
        if let enrage = boss.enrage, !state.boss.enraged, below(enrage.belowHealthPercent) {
            state.boss.enraged = true
            events.append(.bossEnraged(boss: boss.id))
        }
        if let phase = boss.shieldPhase, !state.boss.usedShieldPhase, below(phase.belowHealthPercent) {
            state.boss.usedShieldPhase = true
            let amount = state.boss.maxHealth * phase.shieldPercent / 100
            state.boss.shield += amount
            events.append(.bossShielded(boss: boss.id, amount: amount))
        }
        if let phase = boss.healPhase, !state.boss.usedHealPhase, below(phase.belowHealthPercent) {
            state.boss.usedHealPhase = true
            let amount = min(state.boss.maxHealth - state.boss.health, state.boss.maxHealth * phase.healPercent / 100)
            state.boss.health += amount
            events.append(.bossHealed(boss: boss.id, amount: amount))
        }
    }

    private func bossFalls(to hero: HeroID, in state: inout AdventureState, events: inout [GameEvent]) {
        let fallen = state.boss
        events.append(.bossDefeated(boss: fallen.boss, hero: hero, rank: fallen.rank))
        let next = state.bossIndex + 1
        guard next < bosses.count else {
            state.status = .victory
            events.append(.victory(boss: fallen.boss))
            return
        }
        state.bossIndex = next
        state.boss = BossState(bossDefinition(next))
        events.append(.nextBossAppears(boss: state.boss.boss))
    }

    private func bossActs(in state: inout AdventureState, events: inout [GameEvent]) {
        let boss = bossDefinition(state.bossIndex)
        let ability = chooseAbility(of: boss, &state.random)
        var power = boss.attack * ability.powerPercent / 100
        if state.boss.enraged, let enrage = boss.enrage { power = power * enrage.attackPercent / 100 }

        switch ability.kind {
        case .strike:
            let target = chooseTarget(in: &state)
            hit(target, for: power, by: boss.id, in: &state, events: &events)
        case .sweep:
            events.append(.areaAttack(boss: boss.id))
            for slot in state.heroes.indices where !state.heroes[slot].isKnockedDown {
                hit(slot, for: power, by: boss.id, in: &state, events: &events)
            }
        }
        if state.heroes.allSatisfy(\.isKnockedDown) {
            state.status = .defeat
            events.append(.partyWiped(boss: boss.id))
        }
    }

    private func hit(_ slot: Int, for power: Int, by boss: BossID, in state: inout AdventureState, events: inout [GameEvent]) {
        let damage = max(1, vary(power, &state.random) - fighter(slot).defense)
        let amount = min(damage, state.heroes[slot].health)
        state.heroes[slot].health -= amount
        let hero = state.heroes[slot].hero
        events.append(.damageTaken(hero: hero, boss: boss, amount: amount))
        if state.heroes[slot].isKnockedDown {
            events.append(.heroKnockedDown(hero: hero, boss: boss))
        }
    }

    private func chooseAbility(of boss: BossDefinition, _ random: inout SeededRandom) -> BossAbility {
        let total = boss.abilities.reduce(0) { $0 + $1.weight }
        var roll = random.int(below: total)
        for ability in boss.abilities {
            if roll < ability.weight { return ability }
            roll -= ability.weight
        }
        return boss.abilities[boss.abilities.count - 1]
    }

    /// A standing hero, tanks weighted by their threat. Only called while one stands.
    private func chooseTarget(in state: inout AdventureState) -> Int {
        var total = 0
        for slot in state.heroes.indices where !state.heroes[slot].isKnockedDown {
            total += fighter(slot).threat
        }
        var roll = state.random.int(below: total)
        for slot in state.heroes.indices where !state.heroes[slot].isKnockedDown {
            let threat = fighter(slot).threat
            if roll < threat { return slot }
            roll -= threat
        }
        preconditionFailure("chooseTarget called with no hero standing")
    }
}
